"""Prove the mutation exercises: every planted bug turns the check that claims it red.

    python scripts/mutate.py [ID ...] [--stage N] [--jobs N] [--json] [--full]
    python scripts/mutate.py --show ID          (shows an exercise's answer: its red check)

1) The baseline: the claimed checks run on an unmutated copy of the tree; all must pass (else
   exit 2). Its time sets the proofs' time limit (scripts/copies.py). The first exercises are
   proven beside it, but no verdict is shown before it has passed.
2) For each exercise: copy the tree to a temporary directory (never the working tree), plant
   the bug (the anchor must occur exactly once and the file must still compile), run the
   claimed check (and any the entry lists under `also`) in its own process group, and read
   the results from pytest's JUnit XML.
3) KILLED: every claimed check failed. SURVIVED: one passed. ERROR: the bug could not be
   planted, a check was not collected or was skipped, pytest could not run, or the time
   limit stopped it.

A "write" exercise's check is the student's to write. On main its reference is in place and it
is proven as above; so is a check the student has written at a tag of the built course (no
maintainers' section in course.toml). While the check is still a stub, the exercise is proven
open at its own stage's tag: with the bug planted, the stage's checks and the course's own all
pass (OPEN; CAUGHT if one turns red, and the exercise asks for nothing). Those checks run on
the unmutated tree first, beside the baseline: the open proof's time limit comes from them.

Exit 0 only when every exercise selected is KILLED or OPEN. Nothing is ever written outside
temporary folders, so an interrupted or killed run leaves the working tree as it was; Ctrl-C
also stops the running checks and removes the temporary copies. The student's credits are
scripts/exercise.py's (`make exercise`); this runner never writes them.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: make the course importable

from scripts.copies import Limit, Runner, interruptible  # noqa: E402
from scripts.course import Course, load_course  # noqa: E402
from scripts.manifest import (  # noqa: E402
    MANIFEST,
    Exercise,
    belongs,
    claimed,
    is_stub,
    load_manifest,
    misplaced,
    plant,
    select,
)
from stages.s01_model.cli import run_cli  # noqa: E402
from stages.s01_model.errors import CourseInputError  # noqa: E402
from stages.s01_model.model import Name  # noqa: E402

FORKS_FROM = 4  # pytest runs: the exercises' and the unmutated ones beside them
FULL_SUITE = ["-m", "not runner"]  # the whole suite, less the checks that start this runner
LEGEND = (
    "KILLED: the bug, planted in a copy, turned the check that claims it red, as it must.",
    "OPEN: a check for you to write: no check here catches this bug yet (make exercise).",
)


class Verdict(Name):
    """What proving one exercise concluded."""

    KILLED = "KILLED"  # the claimed check failed: the planted bug was caught
    SURVIVED = "SURVIVED"  # the claimed check passed: nothing noticed the bug
    ERROR = "ERROR"  # the bug could not be planted, or the check could not give a verdict
    OPEN = "OPEN"  # a write exercise at its tag: no check there catches the bug, as it must be
    CAUGHT = "CAUGHT"  # a write exercise whose bug a check at its tag catches already


@dataclass
class Result:
    exercise: Exercise
    verdict: Verdict
    detail: str = ""
    seconds: float = 0.0
    collateral: list[str] | None = None
    output: str = ""


@dataclass(frozen=True)
class Plan:
    """What to prove: the exercises, which of them are proven open, and the checks the open
    proofs run (empty on main, and at a tag whose write exercise is written)."""

    exercises: list[Exercise]
    opened: list[Exercise]
    open_checks: list[str]
    at_a_tag: bool


def plan(exercises: list[Exercise], course: Course, root: Path = ROOT) -> Plan:
    """On main, every exercise. At a tag: a write exercise whose check is a stub is proven
    open at its own stage's tag and left out at later ones; a written check is proven red."""
    at_a_tag = not course.maintainers
    if not at_a_tag:
        return Plan(exercises, [], [], False)
    last = course.stages[-1]
    stubs = [e for e in exercises if e.kind == "write" and is_stub(e, root)]
    opened = [e for e in stubs if e.stage == last.number]
    checks = [f"{last.directory}/checks", "scripts/checks/test_course.py"] if opened else []
    return Plan([e for e in exercises if e not in stubs or e in opened], opened, checks, True)


def prove(runner: Runner, exercise: Exercise, limit: Limit, full: bool, tag: bool) -> Result:
    """Plant one exercise in its own copy and classify what its claimed checks did."""
    started = time.monotonic()
    if runner.stopping.is_set():
        return Result(exercise, Verdict.ERROR, "interrupted")
    tree = runner.copy(exercise.id)
    try:
        problem = plant(tree, exercise)
        if problem is not None:
            return Result(exercise, Verdict.ERROR, problem, time.monotonic() - started)
        run = runner.pytest(tree, FULL_SUITE if full else list(exercise.own), limit)
        elapsed = time.monotonic() - started
        collateral = None
        if full:
            collateral = sorted(
                node for node, state in run.results.items()
                if state == "failed" and not any(belongs(node, c) for c in exercise.own)
            )  # fmt: skip
        if run.code is None:
            why = f"stopped by its time limit, {run.limit:.0f} s (10 times the baseline's)"
            return Result(exercise, Verdict.ERROR, why, elapsed)
        for check in exercise.own:
            states = claimed(run.results, check)
            if not states or "skipped" in states:
                why = "skipped: remove its pytest.skip line" if states else "not collected"
                detail = f"{check}: {why} (pytest exit {run.code})"
                return Result(exercise, Verdict.ERROR, detail, elapsed, collateral, run.output)
            if "failed" not in states:
                detail = f"{check} passes with the bug planted"
                if tag and exercise.kind == "write":
                    detail = "your check passes with the bug planted: it does not catch it yet"
                    detail += f" (make exercise ID={exercise.id})"
                return Result(exercise, Verdict.SURVIVED, detail, elapsed, collateral, run.output)
        return Result(exercise, Verdict.KILLED, "", elapsed, collateral, run.output)
    finally:
        shutil.rmtree(tree.parent, ignore_errors=True)


def prove_open(runner: Runner, exercise: Exercise, checks: list[str], limit: Limit) -> Result:
    """A write exercise at its tag: with the bug planted, every check there but the student's
    must still pass (OPEN); one that turns red means the exercise asks for nothing (CAUGHT)."""
    started = time.monotonic()
    tree = runner.copy(exercise.id)
    try:
        problem = plant(tree, exercise)
        if problem is not None:
            return Result(exercise, Verdict.ERROR, problem, time.monotonic() - started)
        run = runner.pytest(tree, [*checks, "--ignore-glob=*test_exercise_*"], limit)
        elapsed = time.monotonic() - started
        if run.code is None or not run.results:
            why = (
                f"stopped by its time limit, {run.limit:.0f} s"
                if run.code is None
                else f"no check ran (pytest exit {run.code})"
            )
            return Result(exercise, Verdict.ERROR, why, elapsed, output=run.output)
        red = sorted(node for node, state in run.results.items() if state == "failed")
        if red:
            return Result(exercise, Verdict.CAUGHT, f"already red: {', '.join(red[:3])}", elapsed)
        return Result(exercise, Verdict.OPEN, f"{len(run.results)} checks pass with it", elapsed)
    finally:
        shutil.rmtree(tree.parent, ignore_errors=True)


def baseline(runner: Runner, args: list[str], wanted: list[str], limit: Limit) -> list[str]:
    """Run `args` on an unmutated copy and measure it (setting `limit`); return the checks of
    `wanted` that do not pass (all of them must), or every red check when `wanted` is empty."""
    if not args:
        limit.measured(0.0)
        return []  # nothing to run: pytest with no paths would run every check
    tree = runner.copy("baseline")
    try:
        run = runner.pytest(tree, args)
    finally:
        shutil.rmtree(tree.parent, ignore_errors=True)
    limit.measured(run.seconds)
    if run.code is None:
        return ["(stopped by the safety net: a check hangs)"]
    if not wanted:
        red = sorted(node for node, state in run.results.items() if state == "failed")
        return red or ([] if run.results else [f"(no check ran: pytest exit {run.code})"])
    return [check for check in wanted if set(claimed(run.results, check)) != {"passed"}]


def show(runner: Runner, exercise: Exercise) -> int:
    """The planted bug as a diff, its hint, and what its check prints when it goes red."""
    tree = runner.copy(exercise.id)
    try:
        original = (tree / exercise.file).read_text(encoding="utf-8")
        problem = plant(tree, exercise)
        if problem is not None:
            print(f"{exercise.id}: cannot plant: {problem}")
            return 1
        mutated = (tree / exercise.file).read_text(encoding="utf-8")
        diff = difflib.unified_diff(
            original.splitlines(keepends=True),
            mutated.splitlines(keepends=True),
            f"a/{exercise.file}",
            f"b/{exercise.file}",
        )
        print("".join(diff))
        print(f"hint: {exercise.hint}\nwhy it matters: {exercise.why}\n")
        print("(the answer follows: to do this exercise yourself, use `make exercise` instead)\n")
        print(f"the check that must go red: {exercise.check}\n")
        print(runner.pytest(tree, [exercise.check, "--tb=short"], plain=False).output)
        return 0
    finally:
        shutil.rmtree(tree.parent, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description="Prove every mutation exercise red.")
    parser.add_argument("ids", nargs="*", help="only these exercises")
    parser.add_argument("--stage", type=int, help="only the exercises of this stage")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="checks at once")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--full", action="store_true", help="also run the whole suite per bug")
    parser.add_argument("--show", metavar="ID", help="show one exercise: diff, hint, red check")
    parser.add_argument("--manifest", type=Path, default=MANIFEST, help=argparse.SUPPRESS)
    args = parser.parse_args()
    exercises, course = load_manifest(args.manifest), load_course()
    if wrong := misplaced(exercises, course):
        raise CourseInputError(f"{args.manifest.name}: {'; '.join(wrong)}")
    log = sys.stderr if args.json else sys.stdout
    with tempfile.TemporaryDirectory(prefix="mutate-", ignore_cleanup_errors=True) as scratch:
        if args.show:
            return show(Runner(Path(scratch)), select(exercises, [args.show], None)[0])
        chosen = plan(select(exercises, args.ids, args.stage), course)
        if not chosen.exercises:
            print("no exercises selected", file=log)
            return 0
        # forked runs repay the libraries' one import from a few runs on
        runs = len(chosen.exercises) + 1 + bool(chosen.opened)
        with Runner(Path(scratch), forks=runs >= FORKS_FROM) as runner:
            results = run_all(runner, chosen, args.jobs, args.full, log)
    if results is None:
        return 2
    killed = sum(result.verdict == Verdict.KILLED for result in results)
    still = sum(result.verdict == Verdict.OPEN for result in results)
    print(f"{killed} of {len(results)} KILLED" + (f", {still} OPEN" if still else ""), file=log)
    if not args.json:
        print("\n".join(LEGEND[: 2 if still else 1]), file=log)
    if args.json:
        print(json.dumps(summary(results, killed)))
    return 0 if killed + still == len(results) else 1


def run_all(runner: Runner, chosen: Plan, jobs: int, full: bool, log: Any) -> list[Result] | None:
    """Prove every exercise of the plan, the baselines first; None when a baseline fails."""
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    claims, opens = Limit(), Limit()
    with pool, interruptible(runner, pool):
        wanted = sorted({c for e in chosen.exercises if e not in chosen.opened for c in e.own})
        checks: list[tuple[str, Future[list[str]]]] = [
            ("its claimed checks", pool.submit(baseline, runner, wanted, wanted, claims)),
        ]
        if chosen.opened:
            args = [*chosen.open_checks, "--ignore-glob=*test_exercise_*"]
            checks.append(("the checks an open proof runs",
                           pool.submit(baseline, runner, args, [], opens)))  # fmt: skip

        def one(exercise: Exercise) -> Result:
            if exercise in chosen.opened:
                return prove_open(runner, exercise, chosen.open_checks, opens)
            return prove(runner, exercise, claims, full, chosen.at_a_tag)

        proofs = pool.map(one, chosen.exercises)
        for what, future in checks:
            if red := future.result():
                runner.stop_all()  # what was proven beside it counts for nothing
                print(f"the unmutated tree fails {what}: {', '.join(red)}", file=log)
                if chosen.at_a_tag:
                    print("(every check must pass on the code as it is, yours too)", file=log)
                return None
        results = []
        for result in proofs:
            results.append(result)
            line = f"{result.exercise.id:<40} {result.verdict:<8} {result.seconds:5.1f}s"
            print(f"{line}  {result.exercise.check}", file=log, flush=True)
            if result.detail:
                print(f"    {result.detail}", file=log)
            for node in result.collateral or []:
                print(f"    also red: {node}", file=log)
    return results


def summary(results: list[Result], killed: int) -> dict[str, Any]:
    exercises = []
    for result in results:
        entry: dict[str, Any] = {
            "id": result.exercise.id,
            "check": result.exercise.check,
            "verdict": result.verdict,
        }
        if result.collateral is not None:
            entry["collateral"] = result.collateral
        if result.detail:
            entry["detail"] = result.detail
        exercises.append(entry)
    return {"exercises": exercises, "killed": killed, "total": len(results)}


if __name__ == "__main__":
    sys.exit(run_cli(main))  # bad input: one line, exit 2; Ctrl-C: exit 130
