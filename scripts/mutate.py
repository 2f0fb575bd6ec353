"""Prove the mutation exercises: every planted bug turns the one check that claims it red.

    python scripts/mutate.py [ID ...] [--stage N] [--jobs N] [--json] [--full] [--timeout S]
                             [--solved]
    python scripts/mutate.py --show ID

1) The claimed checks run on an unmutated copy of the tree; all must pass (else exit 2). The
   first exercises are proven beside it, but no verdict is shown before it has passed.
2) For each exercise: copy the tree to a temporary directory (never the working tree), plant
   the bug (the anchor must occur exactly once and the file must still compile), run the
   claimed check in its own process group, and read its result from pytest's JUnit XML.
3) KILLED: the claimed check failed. SURVIVED: it passed. ERROR: the bug could not be
   planted, the check was not collected, pytest could not run, or it timed out.

A "write" exercise's check is the student's to write: on main its reference is in place and it
is proven as above; at a tag of the built course (no maintainers' section in course.toml) the
check is a stub, and the runner proves the exercise open instead, at its own stage's tag: with
the bug planted, the stage's checks and the course's own all pass (OPEN; CAUGHT if one turns
red, and the exercise asks for nothing). --solved proves them as on main: the course check
copies each reference into its tag to show the exercise can be solved there.

Exit 0 only when every exercise selected is KILLED or OPEN. Nothing is ever written outside
temporary folders, so an interrupted or killed run leaves the working tree as it was; Ctrl-C
also stops the running checks and removes the temporary copies. The student's credits are
scripts/exercise.py's (`make exercise`); this runner never writes them.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: make the course importable

from scripts.course import Course, junit_results, load_course  # noqa: E402
from stages.s01_model.cli import run_cli  # noqa: E402
from stages.s01_model.errors import CourseInputError  # noqa: E402
from stages.s01_model.files import load_toml  # noqa: E402
from stages.s01_model.model import Name  # noqa: E402

MANIFEST = ROOT / "mutations" / "exercises.toml"
KEYS = ("id", "stage", "file", "find", "replace", "check", "hint", "why")
KINDS = ("predict", "write")  # `kind` may be left out: predict
NOT_COPIED = shutil.ignore_patterns(
    ".git", ".venv", "mutants", "build", "reports", "traces",
    ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis",
    # __pycache__ is copied: a copy that compiled every module afresh would spend most of its
    # time there; Python writes each file whole, and checks the source it was compiled from
)  # fmt: skip
FULL_SUITE = ["-m", "not runner"]  # the whole suite, less the checks that start this runner


@dataclass(frozen=True)
class Exercise:
    id: str
    stage: int
    file: str
    find: str
    replace: str
    check: str
    hint: str
    why: str
    kind: str = "predict"


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


@dataclass
class Runner:
    """Runs pytest in temporary copies; remembers its children so Ctrl-C can stop them."""

    timeout: float
    scratch: Path
    children: set[subprocess.Popen[str]] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)

    def copy(self, name: str) -> Path:
        tree = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.scratch)) / "tree"
        shutil.copytree(ROOT, tree, ignore=NOT_COPIED, symlinks=True)
        return tree

    def pytest(self, tree: Path, args: list[str]) -> tuple[int | None, str, dict[str, str]]:
        """Run pytest in `tree`; return its exit code (None on timeout), output, results."""
        junit = tree.parent / "junit.xml"
        env = {
            **os.environ,
            "HYPOTHESIS_PROFILE": "mutation",
            "HYPOTHESIS_STORAGE_DIRECTORY": str(tree.parent / "hypothesis"),
        }
        # Plain asserts: a failing check fails the same, without pytest re-writing (and, where
        # no bytecode is cached, re-compiling) every test module in every copy.
        plain = [] if "--tb=short" in args else ["--assert=plain"]
        command = [sys.executable, "-m", "pytest", *args, *plain, "-q", "-p", "no:cacheprovider"]
        child = subprocess.Popen(
            # the checks' own temporary files go into the scratch folder too
            [*command, f"--junitxml={junit}", f"--basetemp={tree.parent / 'tmp'}"],
            cwd=tree,  # the copy is the first entry on sys.path, not the working tree
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # its own process group, so it can be stopped whole
        )
        with self.lock:
            self.children.add(child)
            if self.stopping.is_set():
                _kill(child)  # started just as the run was interrupted
        try:
            output, _ = child.communicate(timeout=self.timeout)
            code: int | None = child.returncode
        except subprocess.TimeoutExpired:
            _kill(child)
            output, code = child.communicate()[0], None
        finally:
            with self.lock:
                self.children.discard(child)
        return code, output, junit_results(junit)

    def stop_all(self) -> None:
        """Start nothing more, and kill every running check with its whole process group."""
        with self.lock:
            self.stopping.set()
            for child in list(self.children):
                _kill(child)


def _kill(child: subprocess.Popen[str]) -> None:
    with suppress(ProcessLookupError):  # it may have finished already
        os.killpg(child.pid, signal.SIGKILL)


def belongs(node: str, check: str) -> bool:
    """Whether a test result is the claimed check, or one parameter of it."""
    return node == check or node.startswith(check + "[")


def claimed(results: dict[str, str], check: str) -> list[str]:
    """The states of the claimed check's results (one per parameter)."""
    return [state for node, state in results.items() if belongs(node, check)]


def load_manifest(path: Path = MANIFEST) -> list[Exercise]:
    data = load_toml(path)
    exercises: list[Exercise] = []
    for number, raw in enumerate(data.get("exercise", []), start=1):
        where = f"{path}: exercise {raw.get('id', number)!r}"
        missing = [key for key in KEYS if key not in raw]
        if missing:
            raise CourseInputError(f"{where}: missing {missing[0]!r}")
        extra = set(raw) - {*KEYS, "kind"}
        if extra:
            raise CourseInputError(f"{where}: unknown key {sorted(extra)[0]!r}")
        if raw["id"] in {exercise.id for exercise in exercises}:
            raise CourseInputError(f"{where}: the id is used twice")
        kind = raw.get("kind", "predict")
        if kind not in KINDS:
            raise CourseInputError(f"{where}: kind {kind!r}; known: {', '.join(KINDS)}")
        exercises.append(Exercise(**{key: raw[key] for key in KEYS}, kind=kind))
    return exercises


def plant(tree: Path, exercise: Exercise) -> str | None:
    """Apply the exercise's replacement in `tree`; return why it cannot be planted, or None."""
    target = tree / exercise.file
    if not target.is_file():
        return f"no file {exercise.file}"
    text = target.read_text(encoding="utf-8")
    found = text.count(exercise.find)
    if found != 1:
        return f"anchor found {found} times in {exercise.file}, expected exactly once"
    mutated = text.replace(exercise.find, exercise.replace)
    if mutated == text:
        return "the replacement changes nothing"
    try:
        compile(mutated, exercise.file, "exec")
    except SyntaxError as error:
        return f"the mutated file does not compile: {error.msg} (line {error.lineno})"
    target.write_text(mutated, encoding="utf-8")
    for compiled in (target.parent / "__pycache__").glob(f"{target.stem}.*.pyc"):
        compiled.unlink()  # copied with the tree: never let it stand for the planted source
    return None


def prove(runner: Runner, exercise: Exercise, full: bool) -> Result:
    """Plant one exercise in its own copy and classify what its claimed check did."""
    started = time.monotonic()
    if runner.stopping.is_set():
        return Result(exercise, Verdict.ERROR, "interrupted")
    tree = runner.copy(exercise.id)
    try:
        problem = plant(tree, exercise)
        if problem is not None:
            return Result(exercise, Verdict.ERROR, problem, time.monotonic() - started)
        args = FULL_SUITE if full else [exercise.check]
        code, output, results = runner.pytest(tree, args)
        elapsed = time.monotonic() - started
        mine = claimed(results, exercise.check)
        collateral = None
        if full:
            collateral = sorted(
                node for node, state in results.items()
                if state == "failed" and not belongs(node, exercise.check)
            )  # fmt: skip
        if code is None:
            return Result(
                exercise, Verdict.ERROR, f"timed out after {runner.timeout:.0f} s", elapsed
            )
        if not mine:
            detail = f"check not collected (pytest exit {code})"
            return Result(exercise, Verdict.ERROR, detail, elapsed, collateral, output)
        verdict = Verdict.KILLED if "failed" in mine else Verdict.SURVIVED
        return Result(exercise, verdict, "", elapsed, collateral, output)
    finally:
        shutil.rmtree(tree.parent, ignore_errors=True)


def prove_open(runner: Runner, exercise: Exercise, checks: list[str]) -> Result:
    """A write exercise at its tag: with the bug planted, every check there but the student's
    must still pass (OPEN); one that turns red means the exercise asks for nothing (CAUGHT)."""
    started = time.monotonic()
    tree = runner.copy(exercise.id)
    try:
        problem = plant(tree, exercise)
        if problem is not None:
            return Result(exercise, Verdict.ERROR, problem, time.monotonic() - started)
        code, output, results = runner.pytest(tree, [*checks, "--ignore-glob=*test_exercise_*"])
        elapsed = time.monotonic() - started
        if code is None or not results:
            why = "timed out" if code is None else f"no check ran (pytest exit {code})"
            return Result(exercise, Verdict.ERROR, why, elapsed, output=output)
        red = sorted(node for node, state in results.items() if state == "failed")
        if red:
            return Result(exercise, Verdict.CAUGHT, f"already red: {', '.join(red[:3])}", elapsed)
        return Result(exercise, Verdict.OPEN, f"{len(results)} checks pass with it", elapsed)
    finally:
        shutil.rmtree(tree.parent, ignore_errors=True)


def open_ones(exercises: list[Exercise], course: Course) -> tuple[list[Exercise], list[str]]:
    """At a tag: the write exercises of its own stage, to prove open, and the checks to run."""
    last = course.stages[-1]
    found = [e for e in exercises if e.kind == "write" and e.stage == last.number]
    return found, [f"{last.directory}/checks", "scripts/checks/test_course.py"]


def baseline(runner: Runner, exercises: list[Exercise]) -> list[str]:
    """Claimed checks that do not pass on the unmutated tree (they must all pass)."""
    checks = sorted({exercise.check for exercise in exercises})
    if not checks:
        return []  # nothing claimed: pytest with no paths would run every check
    tree = runner.copy("baseline")
    try:
        code, _, results = runner.pytest(tree, checks)
    finally:
        shutil.rmtree(tree.parent, ignore_errors=True)
    if code is None:
        return ["(timed out)"]
    return [check for check in checks if set(claimed(results, check)) != {"passed"}]


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM is handled like Ctrl-C


@contextmanager
def interruptible(runner: Runner, pool: ThreadPoolExecutor) -> Iterator[None]:
    """On Ctrl-C or SIGTERM: stop every check, cancel the queued ones, wait for the rest.
    Ctrl-C counts even where the runner was started with it ignored (as `&` does in a script)."""
    previous = signal.signal(signal.SIGTERM, _terminate)
    previous_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    except KeyboardInterrupt:
        runner.stop_all()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
        signal.signal(signal.SIGINT, previous_int)


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
        print(f"the check that must go red: {exercise.check}\n")
        _, output, _ = runner.pytest(tree, [exercise.check, "--tb=short"])
        print(output)
        return 0
    finally:
        shutil.rmtree(tree.parent, ignore_errors=True)


def misplaced(exercises: list[Exercise], course: Course) -> list[str]:
    """Exercises whose `stage` is not the stage that brings the file they mutate, or whose
    check belongs to a later stage than theirs: at that stage's tag, one of them is missing."""
    found = []
    for exercise in exercises:
        brought_by = course.owner(exercise.file)
        checked_by = course.owner(exercise.check.split("::", 1)[0])
        if brought_by != exercise.stage:
            found.append(f"{exercise.id}: stage {exercise.stage}, but {exercise.file} "
                         f"comes with stage {brought_by}")  # fmt: skip
        elif checked_by is None or checked_by > exercise.stage:
            found.append(f"{exercise.id}: its check comes with stage {checked_by}")
    return found


def fingerprint(exercise: Exercise, root: Path = ROOT) -> str:
    """The exercise and the two files it involves, hashed: a proof is stale once any changes."""
    digest = hashlib.sha256(json.dumps(vars(exercise), sort_keys=True).encode())
    for name in (exercise.file, exercise.check.split("::", 1)[0]):
        path = root / name
        digest.update(path.read_bytes() if path.is_file() else b"<missing>")
    return digest.hexdigest()


def select(exercises: list[Exercise], ids: list[str], stage: int | None) -> list[Exercise]:
    unknown = sorted(set(ids) - {exercise.id for exercise in exercises})
    if unknown:
        raise CourseInputError(f"no exercise {unknown[0]!r} in {MANIFEST.relative_to(ROOT)}")
    chosen = [e for e in exercises if not ids or e.id in ids]
    return [e for e in chosen if stage is None or e.stage <= stage]


def main() -> int:
    parser = argparse.ArgumentParser(description="Prove every mutation exercise red.")
    parser.add_argument("ids", nargs="*", help="only these exercises")
    parser.add_argument("--stage", type=int, help="only exercises of this stage or earlier")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="checks at once")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--full", action="store_true", help="also run the whole suite per bug")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per pytest run")
    parser.add_argument("--show", metavar="ID", help="show one exercise: diff, hint, red check")
    solved = "at a tag: prove write exercises as on main (their references copied in)"
    parser.add_argument("--solved", action="store_true", help=solved)
    parser.add_argument("--manifest", type=Path, default=MANIFEST, help=argparse.SUPPRESS)
    args = parser.parse_args()
    exercises, course = load_manifest(args.manifest), load_course()
    if wrong := misplaced(exercises, course):
        raise CourseInputError(f"{args.manifest.name}: {'; '.join(wrong)}")
    opened: list[Exercise] = []
    open_checks: list[str] = []
    if not course.maintainers and not args.solved:  # a tag: its write exercises are stubs
        opened, open_checks = open_ones(exercises, course)
        exercises = [e for e in exercises if e.kind != "write" or e in opened]
    log = sys.stderr if args.json else sys.stdout

    with tempfile.TemporaryDirectory(prefix="mutate-", ignore_cleanup_errors=True) as scratch:
        runner = Runner(args.timeout, Path(scratch))
        if args.show:
            return show(runner, select(exercises, [args.show], None)[0])
        chosen = select(exercises, args.ids, args.stage)
        if not chosen:
            print("no exercises selected", file=log)
            return 0
        pool = ThreadPoolExecutor(max_workers=max(1, args.jobs))
        with pool, interruptible(runner, pool):
            # the baseline is queued first; the exercises after it start as workers free up
            checked = pool.submit(baseline, runner, [e for e in chosen if e not in opened])
            proofs = pool.map(
                lambda e: (
                    prove_open(runner, e, open_checks)
                    if e in opened
                    else prove(runner, e, args.full)
                ),
                chosen,
            )
            red = checked.result()
            if red:
                runner.stop_all()  # what was proven beside it counts for nothing
                print(f"the unmutated tree fails its claimed checks: {', '.join(red)}", file=log)
                return 2
            results = []
            for result in proofs:
                results.append(result)
                line = f"{result.exercise.id:<40} {result.verdict:<8} {result.seconds:5.1f}s"
                print(f"{line}  {result.exercise.check}", file=log, flush=True)
                if result.detail:
                    print(f"    {result.detail}", file=log)
                for node in result.collateral or []:
                    print(f"    also red: {node}", file=log)

    killed = sum(result.verdict == Verdict.KILLED for result in results)
    still = sum(result.verdict == Verdict.OPEN for result in results)
    print(f"{killed} of {len(results)} KILLED" + (f", {still} OPEN" if still else ""), file=log)
    if args.json:
        print(json.dumps(summary(results, killed)))
    return 0 if killed + still == len(results) else 1


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
