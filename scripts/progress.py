"""Where you are in the course: this checkout's stage, whether its checks pass, and more.

    python scripts/progress.py [--no-checks] [PATH ...]        (make progress)

The stage is the last one course.toml lists; git says whether the checkout sits on its tag
and which tracked files you have changed. The checks run with pytest (PATH ... to run only
some). Nothing tracked by git is written: pytest's cache is off, and its report goes to a
temporary folder.
"""

from __future__ import annotations

import argparse

# >>> stage 8
import json

# <<<
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: make the course importable

from scripts.course import junit_results, load_course  # noqa: E402

# >>> stage 8
from scripts.mutate import RECORD, fingerprint, load_manifest  # noqa: E402

# <<<
from stages.s01_model.errors import CourseInputError  # noqa: E402


def git(*args: str, cwd: Path = ROOT) -> str | None:
    """git's answer in `cwd` (its last newline removed), or None when git has none."""
    try:
        result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    except OSError:
        return None
    return result.stdout.rstrip("\n") if result.returncode == 0 else None


def position_line(tag: str, cwd: Path = ROOT) -> str:
    """Whether HEAD is the stage's tag, and which tracked files differ from HEAD."""
    if git("rev-parse", "--git-dir", cwd=cwd) is None:
        return "git: not a git checkout"
    described = git("describe", "--tags", "--match", "stage-*", cwd=cwd)
    if described is None:
        return "git: no stage-* tag in this checkout's history"
    where = "on its tag" if described == tag else f"at {described} (git describe)"
    changed = git("status", "--porcelain", "--untracked-files=no", cwd=cwd) or ""
    edited = [line[3:] for line in changed.splitlines()]  # "XY path": two flags and a space
    if not edited:
        return f"git: {where}; no tracked file changed"
    return f"git: {where}; tracked files you changed ({len(edited)}): {', '.join(edited)}"


def checks_line(paths: list[str]) -> tuple[str, bool]:
    """Run the checks; a line with their counts (and the first failures), and whether green."""
    with tempfile.TemporaryDirectory(prefix="progress-") as scratch:
        junit = Path(scratch) / "junit.xml"
        started = time.monotonic()
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
             f"--junitxml={junit}", f"--basetemp={Path(scratch) / 'tmp'}", *paths],
            cwd=ROOT, capture_output=True, text=True, check=False,
        )  # fmt: skip
        seconds = time.monotonic() - started
        outcomes = junit_results(junit)
    red = sorted(node for node, state in outcomes.items() if state == "failed")
    passed = sum(state == "passed" for state in outcomes.values())
    line = f"checks: {passed} passed, {len(red)} failed, of {len(outcomes)} ({seconds:.1f} s)"
    if red:
        line += "\n  red: " + "\n  red: ".join(red[:10]) + ("\n  ..." if len(red) > 10 else "")
    elif run.returncode != 0:  # e.g. a module that does not import is no test case
        line += f"\n  pytest exited with {run.returncode}: run `python -m pytest` to see why"
    return line, run.returncode == 0 and passed > 0


# >>> stage 8
def exercises_line() -> str:
    """Which exercises the mutation runner has proven red, on the files as they are now."""
    try:
        record = json.loads(RECORD.read_text())
    except (OSError, ValueError):
        record = {}
    proven, stale, not_red, waiting = [], [], [], []
    for exercise in load_manifest():
        entry = record.get(exercise.id) if isinstance(record, dict) else None
        if not isinstance(entry, dict):
            waiting.append(exercise.id)
        elif entry.get("fingerprint") != fingerprint(exercise):
            stale.append(exercise.id)
        elif entry.get("verdict") == "KILLED":
            proven.append(exercise.id)
        else:
            not_red.append(f"{exercise.id} ({entry.get('verdict')})")
    total = len(proven) + len(stale) + len(not_red) + len(waiting)
    lines = [f"exercises: {len(proven)} of {total} proven red"]
    for label, ids in (
        ("not yet run", waiting),
        ("changed since proven", stale),
        ("run, but not red", not_red),
    ):
        if ids:
            lines.append(f"  {label}: {', '.join(ids)}")
    if len(proven) < total:
        lines.append("  prove one with `python scripts/mutate.py ID`, all with `make mutate`")
    return "\n".join(lines)


# <<<
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("paths", nargs="*", help="run only these checks (pytest paths)")
    parser.add_argument("--no-checks", action="store_true", help="do not run the checks")
    args = parser.parse_args()
    try:
        stage = load_course().stages[-1]
    except (CourseInputError, IndexError) as error:
        print(
            f"error: course.toml: cannot tell the stage ({error or 'no stages'})", file=sys.stderr
        )
        return 2
    print(f"stage: {stage.tag}, {stage.name}: {stage.title}")
    print(position_line(stage.tag))
    green = True
    if not args.no_checks:
        if sys.stdout.isatty():  # a note while pytest runs, overwritten by the result
            print("checks: running pytest ...", end="\r", flush=True)
        line, green = checks_line(args.paths)
        print(line)
    # >>> stage 8
    print(exercises_line())
    # <<<
    print(f"read next: {stage.directory}/README.md")
    return 0 if green else 1


if __name__ == "__main__":
    sys.exit(main())
