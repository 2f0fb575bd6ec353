"""Where you are in the course: this checkout's stage, whether its checks pass, and more.

    python scripts/progress.py [--no-checks] [PATH ...]        (make progress)

The stage is the last one course.toml lists; git says whether the checkout sits on its tag
(or on a branch of yours after it) and which tracked files you have changed. The checks that
run are the stage's own and the course's, spread over the machine's cores (PATH ... to run
others; `make check` runs every stage's). Nothing tracked by git is written: pytest's cache
is off, and its report goes to a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: make the course importable

from scripts.course import Course, Stage, junit_results, load_course  # noqa: E402
from scripts.exercise import STUDENT, current, done, read_record  # noqa: E402
from scripts.manifest import load_manifest  # noqa: E402
from stages.s01_model.errors import CourseInputError  # noqa: E402

WORKERS = str(min(4, os.cpu_count() or 1))  # pytest-xdist: one process a core, at most four


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
    ahead = re.fullmatch(rf"{re.escape(tag)}-(\d+)-g[0-9a-f]+", described)
    if described == tag:
        where = "on its tag"
    elif ahead:
        where = f"{ahead.group(1)} commit(s) of yours after its tag"
    else:
        where = f"at {described} (git describe)"
    branch = git("symbolic-ref", "--short", "-q", "HEAD", cwd=cwd)
    where += f", on branch {branch}" if branch else ""
    changed = git("status", "--porcelain", "--untracked-files=no", cwd=cwd) or ""
    edited = [line[3:] for line in changed.splitlines()]  # "XY path": two flags and a space
    if not edited:
        return f"git: {where}; no tracked file changed"
    return f"git: {where}; tracked files you changed ({len(edited)}): {', '.join(edited)}"


def own_checks(course: Course, stage: Stage) -> list[str]:
    """The checks of `stage` and the course's own, as pytest paths."""
    brought = [*course.paths, *stage.paths]
    files = [p for p in brought if "/checks/test_" in p and p.endswith(".py")]
    return [f"{stage.directory}/checks", *files]


def checks_line(paths: list[str], spread: bool = False) -> tuple[str, bool]:
    """Run the checks (`spread` over the cores: worth it for a stage's, not for a file's); a
    line with their counts (and the first failures), and whether green."""
    with tempfile.TemporaryDirectory(prefix="progress-") as scratch:
        junit = Path(scratch) / "junit.xml"
        started = time.monotonic()
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
             *(["-n", WORKERS] if spread else []),
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
        line += (
            f"\n  pytest exited with {run.returncode}: run `.venv/bin/python -m pytest` to see why"
        )
    return line, run.returncode == 0 and passed > 0


def exercises_line(record_path: Path = STUDENT, root: Path = ROOT) -> str:
    """What you have done of this checkout's exercises: predictions made (right or wrong) and
    checks written and proven, earned on the exercises as they are now. Only `make exercise`
    earns a credit."""
    manifest = load_manifest(root / "mutations" / "exercises.toml")
    exercises, record = current(manifest, root), read_record(record_path)
    if not exercises:
        return "exercises: none at this stage"
    credited = [e for e in exercises if done(record, e, root)]
    stale = [e.id for e in exercises if e.id in record and e not in credited]
    right = [e.id for e in credited if e.kind == "predict" and record[e.id].get("right")]
    wrong = [e.id for e in credited if e.kind == "predict" and not record[e.id].get("right")]
    written = [e.id for e in credited if e.kind == "write"]
    lines = [f"exercises: {len(credited)} of {len(exercises)} done"]
    for label, ids in (
        ("predicted right", right),
        ("predicted wrong (credited: the red checks showed why)", wrong),
        ("checks written and verified", written),
        ("changed since done: the exercise or its code changed (do them again)", stale),
    ):
        if ids:
            lines.append(f"  {label}: {', '.join(ids)}")
    lines.append(
        "  the next one: make exercise"
        if len(credited) < len(exercises)
        else "  every one is done: when the checks are green, move on with make next"
    )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("paths", nargs="*", help="run only these checks (pytest paths)")
    parser.add_argument("--no-checks", action="store_true", help="do not run the checks")
    parser.add_argument("--record", type=Path, default=STUDENT, help=argparse.SUPPRESS)
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
        line, green = checks_line(args.paths or own_checks(load_course(), stage), not args.paths)
        if not args.paths:  # say whose checks they were: not every stage's
            line = line.replace("checks:", f"checks of {stage.tag} and the course:", 1)
        print(line)
    print(exercises_line(args.record))
    print(f"read next: {stage.directory}/README.md")
    return 0 if green else 1


if __name__ == "__main__":
    sys.exit(main())
