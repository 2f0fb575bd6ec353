"""The student's exercises: the next one to do, and the proof that you did it.

    make exercise                     the next exercise of this stage you have not done
    make exercise ID=...              one exercise: what it asks, and how to answer
    make exercise ID=... PREDICT=N    predict: the check you expect to turn red (number or name)

    (python scripts/exercise.py [ID] [--predict CHECK] [--record FILE] is the same command.)

Every exercise plants one bug, an exact find/replace in one file (mutations/exercises.toml):

    predict  you see the bug and a hint, not its check, and name the check of the stage you
             expect to turn red. The bug is planted in a temporary copy and the stage's
             checks run there: you see every check that turned red, and whether yours did.
             Right or wrong, the prediction is credited: it is the thinking that counts.
    write    no check at this tag catches the bug: the check that would is yours to write,
             in the file the exercise names, where a stub is skipped until you do. Then the
             same command proves it on temporary copies: your check must pass on the code as
             it is, and fail with the bug planted. Only then is it credited.

Credits go to build/progress/student.json (ignored by git), which `make progress` reads; only
this command writes it, never the course's own checks or `make mutate`. A credit goes stale
when the exercise, the file it mutates or the check changes. Nothing tracked is written.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: make the course importable

from scripts.course import load_course  # noqa: E402
from scripts.mutate import (  # noqa: E402
    MANIFEST,
    Exercise,
    Runner,
    belongs,
    claimed,
    fingerprint,
    load_manifest,
    plant,
)
from stages.s01_model.cli import run_cli  # noqa: E402
from stages.s01_model.errors import CourseInputError  # noqa: E402

STUDENT = ROOT / "build" / "progress" / "student.json"  # untracked: the student's credits


def current(exercises: list[Exercise], root: Path = ROOT) -> list[Exercise]:
    """The exercises of the stages this checkout has (all of them, at a tag)."""
    have = {stage.number for stage in load_course(root).stages}
    return [exercise for exercise in exercises if exercise.stage in have]


def read_record(path: Path) -> dict[str, Any]:
    """The student's credits; a record that cannot be read counts as none, never a crash."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def credit(path: Path, exercise: Exercise, entry: dict[str, Any]) -> None:
    """Add one credit, with the fingerprint of what it was earned on; written whole."""
    record = read_record(path)
    record[exercise.id] = {**entry, "kind": exercise.kind, "fingerprint": fingerprint(exercise)}
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(partial, path)


def done(record: dict[str, Any], exercise: Exercise) -> bool:
    """Whether the record credits this exercise on the files as they are now."""
    entry = record.get(exercise.id)
    return isinstance(entry, dict) and entry.get("fingerprint") == fingerprint(exercise)


def stage_checks(exercise: Exercise, root: Path = ROOT) -> list[str]:
    """The checks a prediction chooses from, in file order, each parametrised check once:
    those of the exercise's stage, and those of the file its check is in (which may be an
    earlier stage's). Student-written checks are not among them."""
    folder = f"{load_course(root).stage(exercise.stage).directory}/checks"
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-o", "addopts=",
         "-p", "no:cacheprovider", folder, exercise.check.split("::", 1)[0]],
        cwd=root, capture_output=True, text=True, check=False,
    ).stdout  # fmt: skip
    nodes = [line.split("[", 1)[0] for line in listed.splitlines() if "::" in line]
    return [node for node in dict.fromkeys(nodes) if "/test_exercise_" not in node]


def diff(exercise: Exercise, root: Path = ROOT) -> str:
    """The planted bug, as a unified diff of its file."""
    before = (root / exercise.file).read_text(encoding="utf-8")
    after = before.replace(exercise.find, exercise.replace, 1)
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True),
        f"a/{exercise.file}", f"b/{exercise.file}",
    )  # fmt: skip
    return "".join(lines)


def chosen(prediction: str, checks: list[str]) -> str:
    """The check a prediction names: its number in the list, its node id, or its name."""
    if prediction.isdigit() and 1 <= int(prediction) <= len(checks):
        return checks[int(prediction) - 1]
    named = [node for node in checks if node == prediction or node.endswith("::" + prediction)]
    if len(named) != 1:
        raise CourseInputError(
            f"--predict {prediction!r}: name one check, by its number (1 to {len(checks)}) "
            "or its name, as `make exercise ID=...` lists them"
        )
    return named[0]


def show(exercise: Exercise, record: dict[str, Any]) -> None:
    """What the exercise asks, and the command that answers it."""
    state = "done" if done(record, exercise) else "not done yet"
    print(f"exercise {exercise.id} (stage {exercise.stage}, {exercise.kind}; {state})\n")
    print(diff(exercise))
    print(f"hint: {exercise.hint}\n")
    if exercise.kind == "predict":
        print("Which of these checks will turn red with this bug planted?")
        for number, node in enumerate(stage_checks(exercise), start=1):
            print(f"  {number:>3}  {node}")
        print(f"\nanswer with: make exercise ID={exercise.id} PREDICT=N")
    else:
        file = exercise.check.split("::", 1)[0]
        print(f"No check at this stage catches it. Write the one that does in {file}")
        print(f"(replace its pytest.skip line), then run: make exercise ID={exercise.id}")


def predict(runner: Runner, exercise: Exercise, prediction: str, record_path: Path) -> int:
    """Plant the bug in a copy, run the stage's checks, and say what turned red."""
    checks = stage_checks(exercise)
    named = chosen(prediction, checks)
    tree = runner.copy(exercise.id)
    problem = plant(tree, exercise)
    if problem is not None:
        raise CourseInputError(f"exercise {exercise.id}: cannot plant the bug: {problem}")
    files = sorted({node.split("::", 1)[0] for node in checks})
    code, _, results = runner.pytest(tree, files)
    if code is None:
        raise CourseInputError(f"exercise {exercise.id}: the checks timed out")
    red = sorted(node for node, state in results.items() if state == "failed")
    print(f"with the bug planted, {len(red)} of {len(results)} checks turned red:")
    print("".join(f"  red: {node}\n" for node in red) or "  none\n", end="")
    right = any(belongs(node, named) for node in red)
    print(f"you predicted {named}: {'right' if right else 'wrong'}")
    if not right and not red:
        print("nothing turned red: this bug is not caught at this stage")
    credit(record_path, exercise, {"predicted": named, "right": right, "red": red})
    return 0


def verify(runner: Runner, exercise: Exercise, record_path: Path) -> int:
    """A written check: it must pass on the code as it is, and fail with the bug planted."""
    tree = runner.copy(exercise.id)
    _, output, results = runner.pytest(tree, [exercise.check])
    states = claimed(results, exercise.check)
    if states == ["skipped"]:
        show(exercise, read_record(record_path))
        return 1
    if set(states) != {"passed"}:
        print(f"{output}\nyour check does not pass on the code as it is ({states or 'not run'}):")
        print("it must pass there, and fail only with the bug planted")
        return 1
    problem = plant(tree, exercise)
    if problem is not None:
        raise CourseInputError(f"exercise {exercise.id}: cannot plant the bug: {problem}")
    _, output, results = runner.pytest(tree, [exercise.check])
    if "failed" not in claimed(results, exercise.check):
        print("your check passes on the code as it is, and with the bug planted too:")
        print("it does not notice the bug yet")
        return 1
    print(f"verified: {exercise.check} passes on the code and fails with the bug planted")
    credit(record_path, exercise, {"verified": True})
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("id", nargs="?", help="the exercise (default: the next not done)")
    parser.add_argument("--predict", metavar="CHECK", help="the check you expect to turn red")
    parser.add_argument("--record", type=Path, default=STUDENT, help=argparse.SUPPRESS)
    parser.add_argument("--manifest", type=Path, default=MANIFEST, help=argparse.SUPPRESS)
    args = parser.parse_args()
    exercises, record = current(load_manifest(args.manifest)), read_record(args.record)
    if args.id is None:
        waiting = [exercise for exercise in exercises if not done(record, exercise)]
        if not waiting:
            print(f"every exercise of this checkout is done ({len(exercises)})")
            return 0
        show(waiting[0], record)
        return 0
    exercise = next((e for e in exercises if e.id == args.id), None)
    if exercise is None:
        raise CourseInputError(
            f"no exercise {args.id!r} at this stage ({len(exercises)} here; the stage "
            "READMEs list them, and `make exercise` shows the next)"
        )
    with tempfile.TemporaryDirectory(prefix="exercise-", ignore_cleanup_errors=True) as scratch:
        runner = Runner(300.0, Path(scratch))
        if exercise.kind == "write":
            return verify(runner, exercise, args.record)
        if args.predict is None:
            show(exercise, record)
            return 0
        return predict(runner, exercise, args.predict, args.record)


if __name__ == "__main__":
    sys.exit(run_cli(main))  # bad input: one line, exit 2; Ctrl-C: exit 130
