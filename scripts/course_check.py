"""Check every tag of the built course on its own: its `make check`, exercises included.

    python scripts/course_check.py [--course DIR] [--tags-at-once N] [TAG ...]

Without TAGs, the README's student path too: its commands as written, from a fresh clone of
this repository to a green stage-01 (student_path). For each tag (all `stage-*` tags by
default): a temporary worktree of the built repository at that tag, then `make check` there,
which runs ruff, mypy, the tag's checks and the tag's own mutation exercises; the number of
checks pytest passed must equal the total the tag's README table gives. Then a scripted
student in a clone of its own (as_a_student): the checks of earlier stages written, one
prediction right and one wrong, this stage's check written and proven, `make check STAGE=N`
green with every written check of the stage KILLED (at the last tag, the whole `make check`,
where every carried check is proven again), and `make next` to the next tag, where the
credits and the checks are found. One line per tag with the result and the time. Exit 1 if
any tag is red. Two tags are checked at a time by default (`make course-check`), each from
its own files.

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
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: make the course importable

from scripts.build_course import DEFAULT_OUT, git  # noqa: E402
from scripts.course import ROW, load_course, table_in  # noqa: E402
from scripts.manifest import Exercise, is_stub, load_manifest  # noqa: E402
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
        began = time.monotonic()
        result = subprocess.run(
            ["make", "check", f"VENV={venv}"],
            cwd=tree, env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        took = time.monotonic() - began
        output = install.stdout + install.stderr + result.stdout + result.stderr
        (LOGS / f"{tag}.log").write_text(output)
        passed = re.findall(r"(\d+) passed", output)
        checks = int(passed[0]) if passed else 0  # the first count is pytest's own
        exercises = re.search(r"^(\d+) of (\d+) KILLED(, \d+ OPEN)?$", output, re.M)
        summary = f"make check {took:.0f} s: {checks} checks passed"
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
            try:
                summary += f"; {as_a_student(course, tag, venv, env, scratch)}"
            except CourseInputError as error:
                green, summary = False, f"{summary}; {error} (see {tag}.student.log)"
        return green, summary
    finally:
        with WORKTREES:
            git("worktree", "remove", "--force", str(tree), cwd=course)


def numbered(shown: str) -> dict[str, tuple[int, bool]]:
    """The checks `make exercise ID=...` lists for a prediction: node id -> its number, and
    whether it is marked golden."""
    found, module = {}, ""
    for line in shown.splitlines():
        if re.fullmatch(r"  \S+\.py", line):
            module = line.strip()
        elif match := re.fullmatch(r"    +(\d+)  (\S+)(  \(golden\))?", line):
            found[f"{module}::{match.group(2)}"] = (int(match.group(1)), bool(match.group(3)))
    return found


@dataclass(frozen=True)
class Student:
    """A scripted student's clone of the course at one tag, and how it runs make there."""

    tree: Path
    venv: Path
    env: dict[str, str]
    log: Path
    number: int  # the tag's stage

    def make(self, *args: str) -> str:
        """`make ARGS` as a student types it, with the shared environment; its output
        (appended to the log), or an error naming the command when it fails."""
        began = time.monotonic()
        done = subprocess.run(["make", "--no-print-directory", f"VENV={self.venv}", *args],
                              cwd=self.tree, env=self.env, capture_output=True, text=True,
                              check=False)  # fmt: skip
        took = time.monotonic() - began
        with self.log.open("a") as handle:
            handle.write(f"$ make {' '.join(args)}  ({took:.1f} s)\n{done.stdout}{done.stderr}\n")
        if done.returncode != 0:
            raise CourseInputError(f"make {' '.join(args)} exited {done.returncode}")
        return done.stdout

    def write(self, exercise: Exercise) -> None:
        """The exercise's check written: its reference, as the tag keeps it, put in place."""
        reference = self.tree / "mutations" / "solutions" / Path(exercise.check_file).name
        (self.tree / exercise.check_file).write_bytes(reference.read_bytes())

    def predict(self, exercise: Exercise, right: bool) -> None:
        """A prediction, numbered as `make exercise` lists the checks: the exercise's own
        check, or (to be wrong) a golden check where there is one, else another check."""
        checks = numbered(self.make("exercise", f"ID={exercise.id}"))
        golden = [node for node, (_, marked) in checks.items() if marked]  # from stage 8 on
        named = (
            exercise.check if right else (golden or [n for n in checks if n not in exercise.own])[0]
        )
        said = self.make("exercise", f"ID={exercise.id}", f"PREDICT={checks[named][0]}")
        if f"You predicted {named}: {'right' if right else 'wrong'}." not in said:
            raise CourseInputError(f"the prediction of {named} for {exercise.id} was misjudged")


def as_a_student(course: Path, tag: str, venv: Path, env: dict[str, str], scratch: Path) -> str:
    """A scripted student in a clone of the course at `tag`, who has the checks of earlier
    stages from before: predicts one exercise right and one wrong, writes this stage's check
    (the reference, stub removed) and proves it, runs this stage's `make check STAGE=N` (the
    whole one at the last tag; green, every written check KILLED), moves on with `make next`
    and finds the three credits and the checks there."""
    tree = scratch / f"{tag}-student"
    git("clone", "-q", "--shared", str(course), str(tree), cwd=scratch)
    git("checkout", "-q", tag, cwd=tree)
    venv_for(tree)  # its stamp touched: newer than the pyproject.toml just checked out
    student = Student(tree, venv, env, LOGS / f"{tag}.student.log", int(tag.split("-")[1]))
    student.log.write_text("")
    exercises = load_manifest(tree / "mutations" / "exercises.toml")
    writes = [e for e in exercises if e.kind == "write"]
    for written in (e for e in writes if e.stage < student.number):
        student.write(written)  # from the stages before, carried here
    right, wrong = [e for e in exercises if e.stage == student.number and e.kind == "predict"][:2]
    student.predict(right, right=True)
    student.predict(wrong, right=False)
    mine = next(e for e in writes if e.stage == student.number)
    student.write(mine)
    if not student.make("exercise", f"ID={mine.id}").startswith(f"verified: {mine.check}"):
        raise CourseInputError(f"the reference check of {mine.id} was not verified")
    # this stage's checks and exercises; at the last tag, every stage's, the carried checks too
    last = student.number == load_course().stages[-1].number
    scope = () if last else (f"STAGE={student.number}",)
    proven = re.search(r"^(\d+) of (\d+) KILLED$", student.make("check", *scope), re.M)
    if proven is None or proven.group(1) != proven.group(2):
        raise CourseInputError("with its checks written, make check did not prove them all KILLED")
    moved = student.make("next")
    after = next((s.tag for s in load_course().stages if s.number > student.number), "")
    if "there is no next tag" in moved:
        return f"a scripted student: {proven.group(0)}, make check green; the last tag"
    credits = student.make("progress", "NO_CHECKS=1")
    kinds = ["exercises: 3 of ", f"  predicted right: {right.id}\n", f"): {wrong.id}\n",
             f"verified: {mine.id}\n"]  # fmt: skip
    carried = [e for e in writes if e.stage <= student.number]
    if not moved.startswith(f"now at {after}") or any(is_stub(e, tree) for e in carried):
        raise CourseInputError(f"make next did not bring the written checks to {after}")
    if not all(kind in credits for kind in kinds):
        raise CourseInputError(f"at {after}, make progress does not show the three credits")
    return (
        f"a scripted student: {proven.group(0)}, make check green; make next: {after} with "
        f"{len(carried)} written checks and 3 credits"
    )


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
