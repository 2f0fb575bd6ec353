"""Check every tag of the built course on its own: its `make check`, exercises included.

    python scripts/course_check.py [--course DIR] [--tags-at-once N] [TAG ...]

Without TAGs, the README's student path too: its commands as written, from a fresh clone of
this repository to a green stage-01 (student_path). For each tag (all `stage-*` tags by
default): a temporary worktree of the built repository at
that tag, then `make check` there, which runs ruff, mypy, the tag's checks and, from the first
stage that has them, the tag's own mutation exercises. One line per tag with the result and
the time; the number of checks pytest passed must equal the total the tag's README table
gives. Exit 1 if any tag is red. Two tags are checked at a time by default (`make
course-check`); each in its own worktree, from its own files.

Virtual environments are shared between tags whose pyproject.toml is byte for byte the same
(kept in build/venvs/, named by its hash), so a tag never runs with a dependency it does not
declare; one tag at a time installs a shared environment, and the others wait for it. Each
tag's full output goes to build/course-check/TAG.log.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: make the course importable

from scripts.build_course import DEFAULT_OUT, git  # noqa: E402
from scripts.course import ROW, table_in  # noqa: E402
from scripts.mutate import load_manifest  # noqa: E402
from stages.s01_model.errors import CourseInputError  # noqa: E402

VENVS = ROOT / "build" / "venvs"
LOGS = ROOT / "build" / "course-check"
INSTALLING: defaultdict[Path, threading.Lock] = defaultdict(threading.Lock)  # one per venv
WORKTREES = threading.Lock()  # git adds and removes worktrees one at a time


def venv_for(tree: Path) -> Path:
    """The shared environment for this tree's pyproject.toml. If it is already installed, its
    stamp is touched, so that make sees it as newer than the freshly checked-out file."""
    digest = hashlib.sha256((tree / "pyproject.toml").read_bytes()).hexdigest()[:16]
    venv = VENVS / digest
    stamp = venv / ".installed"
    if stamp.exists():
        stamp.touch()
    return venv


def claimed_checks(tree: Path, tag: str) -> int | None:
    """The total number of checks the tag's README table gives for the tag itself."""
    for row in ROW.finditer(table_in((tree / "README.md").read_text())):
        if f"stage-{row.group(1)}" == tag:
            return int(row.group(2))
    return None


def check_tag(course: Path, tag: str, scratch: Path) -> tuple[bool, str]:
    """Run the tag's own `make check` in a worktree; whether it is green, and a summary."""
    tree = scratch / tag
    with WORKTREES:
        git("worktree", "add", "--quiet", "--detach", str(tree), tag, cwd=course)
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}
        venv = venv_for(tree)
        with INSTALLING[venv]:  # a tag that shares it waits until it is installed
            install = subprocess.run(
                ["make", f"VENV={venv}", f"{venv}/.installed"],
                cwd=tree, env=env, capture_output=True, text=True, check=False,
            )  # fmt: skip
        result = subprocess.run(
            ["make", "check", f"VENV={venv}"],
            cwd=tree, env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        output = install.stdout + install.stderr + result.stdout + result.stderr
        (LOGS / f"{tag}.log").write_text(output)
        passed = re.findall(r"(\d+) passed", output)
        checks = int(passed[0]) if passed else 0  # the first count is pytest's own
        exercises = re.search(r"^(\d+) of (\d+) KILLED(, \d+ OPEN)?$", output, re.M)
        summary = f"{checks} checks passed"
        summary += (
            f", {exercises.group(1)} of {exercises.group(2)} exercises KILLED"
            + (exercises.group(3) or "")
            if exercises
            else ", no exercises"
        )
        green = result.returncode == 0
        claimed = claimed_checks(tree, tag)
        if green and claimed != checks:
            green, summary = False, f"{summary}; its README table says {claimed}"
        if green:
            green, solved = as_a_student(tree, venv / "bin" / "python", tag, env)
            summary += f"; {solved}"
        return green, summary
    finally:
        with WORKTREES:
            git("worktree", "remove", "--force", str(tree), cwd=course)


def as_a_student(tree: Path, python: Path, tag: str, env: dict[str, str]) -> tuple[bool, str]:
    """The tag's write exercises solved: each reference check (this repository's) copied into
    place proves its exercise there. Then a scripted student predicts one exercise and has one
    check verified, and `make progress` must credit exactly those two."""
    number = int(tag.split("-")[1])
    exercises = load_manifest(tree / "mutations" / "exercises.toml")
    writes = [e for e in exercises if e.kind == "write" and e.stage == number]
    predicts = [e for e in exercises if e.kind == "predict"]
    if not writes or not predicts:
        return False, "needs a write exercise of its own stage and a predict exercise"
    for exercise in writes:
        path = exercise.check.split("::", 1)[0]
        (tree / path).write_bytes(git("show", f"HEAD:{path}", cwd=ROOT))
    log = LOGS / f"{tag}.student.log"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([str(python), *args], cwd=tree, env=env, capture_output=True,
                              text=True, check=False)  # fmt: skip
        with log.open("a") as handle:
            handle.write(f"$ {' '.join(args)}\n{done.stdout}{done.stderr}\n")
        return done

    log.write_text("")
    proof = run("scripts/mutate.py", "--solved", *(e.id for e in writes))
    if proof.returncode != 0:
        return False, f"a write exercise is not solvable with its reference (see {log.name})"
    record = str(tree.parent / f"{tag}.student.json")
    predicted = run("scripts/exercise.py", predicts[0].id, "--predict", predicts[0].check,
                    "--record", record)  # fmt: skip
    written = run("scripts/exercise.py", writes[0].id, "--record", record)
    shown = run("scripts/progress.py", "--no-checks", "--record", record)
    credited = f"exercises: 2 of {len(exercises)} done"
    if predicted.returncode or written.returncode or credited not in shown.stdout:
        return False, f"the scripted student was not credited two (see {log.name})"
    return True, f"{len(writes)} write exercises solvable; a scripted student credited 2"


def student_path(scratch: Path) -> tuple[bool, str]:
    """The README's student path, run as written, command by command, in a fresh folder, with
    URL standing for this repository's folder: it must end with a green stage-01."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## The student's path", 1)[1].split("```\n", 2)[1]
    commands = [line for line in block.splitlines() if line.strip()]
    here = scratch / "student-path"
    here.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}
    script = "set -ex\n" + "\n".join(c.replace("URL", str(ROOT)) for c in commands)
    done = subprocess.run(["bash", "-c", script], cwd=here, env=env, capture_output=True,
                          text=True, check=False)  # fmt: skip
    (LOGS / "student-path.log").write_text(done.stdout + done.stderr)
    ran = f"{len(commands)} commands of the README's student path"
    if done.returncode != 0:
        return False, f"{ran}: stopped with exit {done.returncode} (see student-path.log)"
    return True, f"{ran} ran as written; {commands[-1]!r} green"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("tags", nargs="*", help="only these tags (default: every stage-* tag)")
    parser.add_argument("--course", type=Path, default=DEFAULT_OUT, help="the built course")
    parser.add_argument("--tags-at-once", type=int, default=2, help="tags checked at a time")
    args = parser.parse_args()
    try:
        if not (args.course / ".git").exists():
            raise CourseInputError(f"{args.course}: no built course here; run `make course` first")
        tags = args.tags or git("tag", "--list", "stage-*", cwd=args.course).decode().split()
        known = set(git("tag", "--list", "stage-*", cwd=args.course).decode().split())
        if unknown := sorted(set(tags) - known):
            raise CourseInputError(f"{args.course}: no tag {unknown[0]!r}")
    except CourseInputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    LOGS.mkdir(parents=True, exist_ok=True)
    started, red = time.monotonic(), []
    with tempfile.TemporaryDirectory(prefix="course-check-") as scratch:

        def timed(tag: str) -> tuple[str, bool, str, float]:
            began = time.monotonic()
            green, summary = check_tag(args.course, tag, Path(scratch))
            return tag, green, summary, time.monotonic() - began

        def walked(_: str) -> tuple[str, bool, str, float]:
            began = time.monotonic()
            green, summary = student_path(Path(scratch))
            return "student path", green, summary, time.monotonic() - began

        # the latest tags first: they take longest, and the small ones fill in beside them
        order = sorted(tags, reverse=True)
        jobs = [(timed, tag) for tag in order] + ([(walked, "")] if not args.tags else [])
        with ThreadPoolExecutor(max_workers=max(1, args.tags_at_once)) as pool:
            for tag, green, summary, seconds in pool.map(lambda job: job[0](job[1]), jobs):
                verdict = "green" if green else "RED"
                print(f"{tag}  {verdict:<5}  {seconds:6.1f} s  {summary}", flush=True)
                if not green:
                    red.append(tag)
    total = time.monotonic() - started
    checked = len(tags) + (0 if args.tags else 1)
    print(f"{checked - len(red)} of {checked} green in {total:.0f} s; logs in {LOGS}")
    return 1 if red else 0


if __name__ == "__main__":
    sys.exit(main())
