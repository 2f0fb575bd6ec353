"""What the README shows an engineer works as written: every `honest-evals` command in its
code blocks, and the gate of the GitHub Actions example.

Each runs in a copy of the course, as in a fresh clone, so that what the commands write (a
history, a recording of canaries, reports) stays there. Where the README exports a key and
an endpoint, the check gives the loopback server instead (toolkit/cases.py), answering as
the course's steady judge: the only network is 127.0.0.1.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from contextlib import nullcontext
from pathlib import Path

import pytest

from toolkit.cases import CI_EXAMPLE, LOOPBACK
from toolkit.checks.test_door import DOOR, LAST, course_copy, not_here
from toolkit.verbs import BY_NAME, ROOT

LOOPBACK_KEY = "sk-loopback-not-a-key"
CERTIFIED = "PeopleJudge"  # the loopback's judge: one the course's 48 labels can certify


def run(line: str, cwd: Path, env: dict[str, str]):
    argv = shlex.split(line, comments=True)
    assert Path(argv[0]).name == "honest-evals", line
    return subprocess.run(
        [str(DOOR), *argv[1:]], cwd=cwd, capture_output=True, text=True, timeout=600,
        env={**os.environ, **env},
    )  # fmt: skip


def readme_commands() -> list[str]:
    """The door's lines of the README's code blocks, in order, `export` lines among them."""
    lines, fence = [], None  # the fence's language while in a block, None outside one
    for line in (ROOT / "README.md").read_text().splitlines():
        if line.startswith("```"):
            fence = line[3:] if fence is None else None
        elif fence == "":  # a shell block (the CI example's YAML is checked on its own)
            lines.append(line)
    return [line for line in lines if line.startswith((".venv/bin/honest-evals ", "export "))]


def test_every_door_command_the_readme_shows_runs_as_written(tmp_path):
    commands = readme_commands()
    assert bool(commands) == (LAST >= 8), "the door's commands come with the evaluation"
    course, env = course_copy(tmp_path), {}
    wire = any(line.startswith("export ") for line in commands)
    assert wire == (LOOPBACK is not None), "a judge on the wire comes with the loopback server"
    with LOOPBACK(CERTIFIED) if LOOPBACK is not None else nullcontext("") as url:
        for line in commands:
            if line.startswith("export "):
                names = [pair.split("=", 1)[0] for pair in shlex.split(line)[1:]]
                assert names == ["OPENAI_BASE_URL", "OPENAI_API_KEY"], line
                env = {"OPENAI_BASE_URL": url, "OPENAI_API_KEY": LOOPBACK_KEY}
                continue
            result = run(line, course, env)
            assert result.returncode == expected(line), f"{line}\n{result.stderr[-3000:]}"
            assert "Traceback" not in result.stderr
            assert LOOPBACK_KEY not in result.stdout + result.stderr


def expected(line: str) -> int:
    """The exit status a line says it has (`# exit 1: why`), else 0."""
    said = re.search(r"# exit (\d+)", line)
    return int(said[1]) if said else 0


def ci_steps(text: str) -> list[tuple[str, dict[str, str]]]:
    """Each `run:` step of a workflow, with its `env:` (read as the example lays them out)."""
    steps: list[tuple[str, dict[str, str]]] = []
    for line in text.splitlines():
        if found := re.fullmatch(r" *- run: (.+)", line):
            steps.append((found[1], {}))
        elif steps and (pair := re.fullmatch(r" {10}([A-Z_]+): (.+)", line)):
            steps[-1][1][pair[1]] = pair[2]
    return steps


@pytest.mark.failure_mode
def test_the_ci_examples_gate_passes_the_judge_calibrated_and_fails_a_changed_one(tmp_path):
    if not CI_EXAMPLE:  # the example gates on a history, which a later stage brings
        result = run("honest-evals gate --history h.jsonl", ROOT, {})
        return not_here(result, "gate", "--history" if "gate" in BY_NAME else "")
    assert LOOPBACK is not None
    text = (ROOT / CI_EXAMPLE).read_text()
    once = re.findall(r"^#   (honest-evals calibrate .+)$", text, re.MULTILINE)
    gates = [(cmd, env) for cmd, env in ci_steps(text) if cmd.startswith("honest-evals gate ")]
    assert len(once) == 1 and len(gates) == 1, "one calibration to commit, one gate"
    (gate, written), course = gates[0], course_copy(tmp_path)
    assert "--history" in gate and written["OPENAI_API_KEY"] == "${{ secrets.OPENAI_API_KEY }}"
    journal = course / ".judge-journal.sqlite"  # a fresh runner has none: each run asks anew
    with LOOPBACK(CERTIFIED) as url:
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        env = {**written, "OPENAI_BASE_URL": url, "OPENAI_API_KEY": LOOPBACK_KEY}
        assert run(once[0], course, env).returncode == 0
        journal.unlink()
        same = run(gate, course, env)
    assert same.returncode == 0, same.stdout + same.stderr
    journal.unlink()
    with LOOPBACK("BiasedJudge", port):  # the same name and endpoint, another judge
        changed = run(gate, course, env)
    assert changed.returncode == 1, changed.stdout + changed.stderr  # which fails the job
    assert "FAIL  kappa held" in changed.stdout or "FAIL  verbosity held" in changed.stdout
    assert LOOPBACK_KEY not in same.stdout + same.stderr + changed.stdout + changed.stderr
    return None
