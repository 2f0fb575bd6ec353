"""`honest-evals VERB`: the toolkit's commands in one place, each a call into the stage that
teaches it, with that command's output and JSON keys.

    honest-evals                 every verb with a line each (also --help)
    honest-evals VERB [ARGS]     the verb, as the latest stage of this checkout has it
    honest-evals VERB --help     its options, an example, its exit codes, where its JSON is

The exit status follows one table for every verb (verbs.EXIT_CODES). Stage commands that
report a finding and still exit 0 (they teach with a demo that finds one) are read back here:
the door exits 1 when the report it wrote has one of the verb's findings.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import textwrap
from functools import partial
from pathlib import Path
from typing import Any

from stages.s01_model.cli import run_cli
from stages.s01_model.errors import CourseInputError
from toolkit.verbs import (
    BROUGHT,
    BY_NAME,
    EXIT_CODES,
    LATER_OPTIONS,
    LOCAL_RUNS,
    ROOT,
    SPECS,
    Route,
    Verb,
)

PROG = "honest-evals"
HELP = ("-h", "--help")


def main(argv: list[str] | None = None) -> int:
    """The door, as the console script and `python -m toolkit` run it."""
    return run_cli(partial(door, sys.argv[1:] if argv is None else argv))


def door(argv: list[str]) -> int:
    if not argv or argv[0] in HELP:
        print(listing())
        return 0 if argv else 2  # no verb is a usage error, answered with the list
    if argv[0] not in BROUGHT:
        raise CourseInputError(f"{PROG} {argv[0]}: no such verb; `{PROG} --help` lists them")
    verb = BY_NAME.get(argv[0])
    if verb is None:
        raise CourseInputError(brought(argv[0], BROUGHT[argv[0]]))
    args = argv[1:]
    if verb.name == "local-judge":
        return local_judge(verb, args)
    route = choose(verb, args)
    if any(arg in HELP for arg in args):
        return helped(verb, route, args)
    status = call(verb, route, args)
    return status if status or not (verb.found and route.out) else findings(verb, route, args)


def stages_here() -> int:
    """The last stage this checkout has."""
    found = (ROOT / "stages").glob("s[0-9][0-9]_*/__main__.py")
    return max(int(path.parent.name[1:3]) for path in found)


def brought(verb: str, stage: int, option: str = "") -> str:
    given = f" {option}" if option else ""
    return (
        f"{PROG} {verb}{given}: stage {stage} brings it; this checkout has stages 1 to "
        f"{stages_here()}"
    )


def given(option: str, args: list[str]) -> bool:
    return any(arg == option or arg.startswith(f"{option}=") for arg in args)


def choose(verb: Verb, args: list[str]) -> Route:
    """The route that serves the verb here: the latest whose option is given, else the latest
    that needs none. An option a later stage brings is bad input, named with that stage."""
    for route in reversed(verb.routes):
        if any(given(option, args) for option in route.options):
            return route
    for (name, option), stage in LATER_OPTIONS.items():
        if name == verb.name and given(option, args):
            raise CourseInputError(brought(verb.name, stage, option))
    return [route for route in verb.routes if not route.options][-1]


def call(verb: Verb, route: Route, args: list[str]) -> int:
    """The stage command, given the verb's arguments, shown under the door's name."""
    try:
        command: Any = importlib.import_module(f"{route.module}.__main__")
    except ModuleNotFoundError as missing:  # a dependency the environment was installed without
        if missing.name is None or missing.name.split(".")[0] in ("stages", "toolkit", "fakes"):
            raise
        raise CourseInputError(
            f"{PROG} {verb.name}: needs {missing.name}, which is not installed here; `make` (or "
            "pip install -e FOLDER, for the course's folder) installs what the course needs"
        ) from None
    prog = PROG if route.command else f"{PROG} {verb.name}"
    if route.report:  # the stage's report, named as the door names it
        status: int = command.main([route.report, *args], prog, name=route.report)
    else:
        status = command.main([*route.command, *args], prog)
    return status


def helped(verb: Verb, route: Route, args: list[str]) -> int:
    """The stage command's own help, then what the door adds to it."""
    try:
        call(verb, route, [arg for arg in args if arg not in HELP] + ["--help"])
    except SystemExit as done:  # argparse printed the help
        if done.code not in (0, None):
            return int(done.code) if isinstance(done.code, int) else 2
    print("\n" + "\n".join(epilog(verb, route)))
    return 0


def epilog(verb: Verb, route: Route) -> list[str]:
    """An example, the exit codes, where the JSON keys are, and which stage serves the verb."""
    lines = ["example:", f"  {verb.example}", "", "exit status:"]
    for code, meaning in EXIT_CODES:
        said = textwrap.wrap(verb.one if code == 1 else meaning, 86)
        lines += [f"  {code:>3}  {said[0]}", *(f"       {more}" for more in said[1:])]
    readmes = [f"stages/{r.module.split('.')[1]}/README.md" for r in verb.routes]
    where = "--json keys" if verb.json else "no --json; what it writes"
    keys = textwrap.wrap(f"{where}: {', '.join(dict.fromkeys(readmes))}", 92)
    lines += ["", *keys, ""]
    lines.append(f"served here by `{route.shown}` (stage {route.stage})")
    for other in verb.routes:
        if other.options and other is not route:
            help_of = f"{PROG} {verb.name} {other.options[0]} FILE --help"
            lines.append(f"with {' or '.join(other.options)}: `{other.shown}` (`{help_of}`)")
    for (name, option), stage in LATER_OPTIONS.items():
        if name == verb.name and not any(option in r.options for r in verb.routes):
            lines.append(f"with {option}: stage {stage} brings it")
    return lines


def listing() -> str:
    """Every verb with its line; a verb this checkout lacks names the stage that brings it."""
    lines = [f"usage: {PROG} VERB [ARGS]   ({PROG} VERB --help: its options and exit codes)", ""]
    for name, stage in BROUGHT.items():
        line = BY_NAME[name].line if name in BY_NAME else f"(stage {stage} brings it)"
        lines.append(f"  {name:<12} {line}")
    lines += ["", *textwrap.wrap(f"--judge SPEC, for every verb that asks a judge: {SPECS}.", 92)]
    lines += ["", "exit status, every verb:"]
    lines += [f"  {code:>3}  {meaning}" for code, meaning in EXIT_CODES]
    return "\n".join(lines)


def report_file(route: Route, args: list[str]) -> Path:
    """Where the stage wrote its JSON report: --out, or the stage's own default."""
    if route.out == "--out-dir":  # the audit: read as the audit reads its arguments
        command: Any = importlib.import_module(f"{route.module}.__main__")
        parsed = command.parser().parse_args(args or command.DEMO)
        return Path(command.outputs_for(parsed.file, parsed.out_dir).report)
    finder = argparse.ArgumentParser(add_help=False)
    finder.add_argument("--out", type=Path)
    out: Path | None = finder.parse_known_args(args)[0].out
    return out if out is not None else ROOT / route.out


def findings(verb: Verb, route: Route, args: list[str]) -> int:
    """1, naming them on stderr, when the report the stage wrote has one of the verb's
    findings; else 0. A measure the report does not have was not asked for (an audit without
    people's labels has no calibration); the checks hold the names to the reports."""
    report = json.loads(report_file(route, args).read_text(encoding="utf-8"))
    found = [key for key in verb.found if state(report, key.split(".")) == "found"]
    if found:
        print(f"{PROG} {verb.name}: found: {', '.join(found)} (exit 1)", file=sys.stderr)
    return 1 if found else 0


def state(report: Any, path: list[str]) -> Any:
    """The state of the measure at `path` in a report; None when it has none."""
    for part in path:
        report = report.get(part) if isinstance(report, dict) else None
    return report.get("state") if isinstance(report, dict) else None


def local_judge(verb: Verb, args: list[str]) -> int:
    """A local model's runs (the first model's without --model), each serving the model for as
    long as it runs. A run that cannot start (exit 2) or is interrupted stops the rest; one
    that fails is counted."""
    route = choose(verb, [])
    if any(arg in HELP for arg in args):
        print(f"usage: {PROG} local-judge [--model NAME]\n\n{local_runs_text()}\n\n"
              + "\n".join(epilog(verb, route)))  # fmt: skip
        return 0
    model = next(iter(LOCAL_RUNS))
    if args[:1] == ["--model"] and len(args) == 2:
        model = args[1]
    elif args:
        raise CourseInputError(f"{PROG} local-judge: takes --model NAME only, not {' '.join(args)}")
    if model not in LOCAL_RUNS:
        raise CourseInputError(f"--model {model!r}: known: {', '.join(LOCAL_RUNS)}")
    os.chdir(ROOT)  # the runs name their files from the course's folder
    failed = False
    for run, counts in LOCAL_RUNS[model]:
        print(f"== {PROG} {' '.join(run)}", file=sys.stderr)
        status = run_cli(partial(call, verb, route, list(run)))
        if status not in (0, 1):
            return status
        failed |= counts and status == 1
    return 1 if failed else 0


def local_runs_text() -> str:
    """Each model's runs, as `local-judge --help` lists them."""
    blocks = [
        f"Runs of --model {model}, each with the model served on 127.0.0.1 while it runs:\n"
        + "\n".join(
            f"  {PROG} {' '.join(run)}" + ("" if counts else "   (expected to fail)")
            for run, counts in runs
        )
        for model, runs in LOCAL_RUNS.items()
    ]
    return "\n\n".join(blocks)
