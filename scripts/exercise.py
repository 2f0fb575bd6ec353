"""The student's exercises: the next one to do, and the proof that you did it.

    make exercise                     the next exercise of this checkout you have not done
    make exercise ID=...              one exercise: what it asks; for a check you wrote, the proof
    make exercise ID=... PREDICT=N    predict: the check you expect to turn red (number or name)

    (python scripts/exercise.py [ID] [--predict CHECK] [--record FILE] is the same command.)

Every exercise plants one bug, an exact find/replace in one file (mutations/exercises.toml,
which holds the answers: use this command instead of reading it):

    predict  you see the bug and a hint, not its check, and name the check you expect to turn
             red. The bug is planted in a temporary copy and the checks of the stage run there,
             beside the same checks on an unmutated copy: you see each check the bug turned
             red, with the first line of what it said, and the check the exercise names. You
             are right when you named that check (or one the exercise lists beside it), never
             merely one that turned red too. Right or wrong, the prediction is credited.
    write    no check at this tag catches the bug: the check that would is yours to write, in
             the file the exercise names, whose stub skips until you do. Then the same command
             proves it on temporary copies: your check must pass on the code as it is, and fail
             with the bug planted. Only then is it credited, and the course's reference check
             is shown beside yours.

Credits go to .progress/student.json (ignored by git, left alone by a checkout and by `make
clean`), which `make progress` reads; only this command writes it. A credit keeps what was
proven: the prediction and what turned red, or the check you wrote; it goes stale only when
the exercise or the code its bug is planted in changes (scripts/manifest.py, fingerprint).
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import sys
import tempfile
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: make the course importable

from scripts.copies import Limit, Run, Runner, interruptible  # noqa: E402
from scripts.course import collected, load_course  # noqa: E402
from scripts.manifest import (  # noqa: E402
    MANIFEST,
    Exercise,
    belongs,
    claimed,
    fingerprint,
    function,
    is_stub,
    load_manifest,
    plant,
)
from stages.s01_model.cli import run_cli  # noqa: E402
from stages.s01_model.errors import CourseInputError  # noqa: E402

STUDENT = ROOT / ".progress" / "student.json"  # untracked: the student's credits
SOLUTIONS = "mutations/solutions"  # at a tag: the reference checks, written by the build
GOLDEN = "golden"  # the mark of a check that holds a whole output to a reviewed copy


def current(exercises: list[Exercise], root: Path = ROOT) -> list[Exercise]:
    """The exercises of the stages this checkout has (all of them, on main)."""
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


def done(record: dict[str, Any], exercise: Exercise, root: Path = ROOT) -> bool:
    """Whether the record credits this exercise, earned on the exercise as it is now."""
    entry = record.get(exercise.id)
    return isinstance(entry, dict) and entry.get("fingerprint") == fingerprint(exercise, root)


def stage_checks(exercise: Exercise, root: Path = ROOT) -> list[tuple[str, bool]]:
    """The checks a prediction chooses from, grouped by module, each parametrised check once,
    and whether it holds a whole output to a reviewed copy: those of the exercise's stage, and
    those of the file its check is in (which may be an earlier stage's). The checks students
    write are not among them."""
    folder = f"{load_course(root).stage(exercise.stage).directory}/checks"
    found: dict[str, bool] = {}
    for node, marks in collected(root, (folder, exercise.check_file)):
        if "/test_exercise_" not in node:
            found.setdefault(node.split("[", 1)[0], GOLDEN in marks)
    files = list(dict.fromkeys(node.split("::", 1)[0] for node in found))
    return sorted(found.items(), key=lambda item: files.index(item[0].split("::", 1)[0]))


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


def listing(checks: list[tuple[str, bool]]) -> str:
    """The checks, numbered, under the module they are in."""
    lines, module = [], ""
    for number, (node, golden) in enumerate(checks, start=1):
        path, name = node.split("::", 1)
        if path != module:
            lines.append(f"  {path}")
            module = path
        lines.append(f"    {number:>3}  {name}" + ("  (golden)" if golden else ""))
    if any(golden for _, golden in checks):
        lines.append("  (golden): it holds a whole output to a reviewed copy, so any change at")
        lines.append("  all turns it red; it names no one failure")
    return "\n".join(lines)


def show(exercise: Exercise, record: dict[str, Any]) -> None:
    """What the exercise asks, and the command that answers it."""
    state = "done" if done(record, exercise) else "not done yet"
    print(f"exercise {exercise.id} (stage {exercise.stage}, {exercise.kind}; {state})\n")
    print(diff(exercise))
    print(wrapped(f"hint: {exercise.hint}") + "\n")
    if exercise.kind == "predict":
        print("Which of these checks will turn red with this bug planted?")
        print(listing(stage_checks(exercise)))
        print(f"\nanswer with: make exercise ID={exercise.id} PREDICT=N")
    elif is_stub(exercise):
        name = exercise.check.split("::", 1)[1]
        print("No check at this stage catches it. Write the one that does, in")
        print(f"  {exercise.check_file}:")
        print(wrapped(f"replace the pytest.skip line of {name} with a check that passes on the "
                      "code as it is and fails with this bug planted. Then prove it:"))  # fmt: skip
        print(f"  make exercise ID={exercise.id}")
    else:
        print(f"Your check in {exercise.check_file} is written: prove it with")
        print(f"make exercise ID={exercise.id}")


def wrapped(text: str) -> str:
    """A paragraph of the command's own words, kept within the width of a terminal."""
    return textwrap.fill(text, width=92, break_on_hyphens=False, break_long_words=False)


def side_by_side(
    runner: Runner, exercise: Exercise, files: list[str] | None = None
) -> tuple[Run, Run]:
    """The stage's checks (or those of `files` only) on an unmutated copy and, beside it, on a
    copy with the bug planted; the planted run may take ten times what the unmutated one took."""
    files = files or sorted({node.split("::", 1)[0] for node, _ in stage_checks(exercise)})
    clean, planted = runner.copy("unmutated"), runner.copy(exercise.id)
    problem = plant(planted, exercise)
    if problem is not None:
        raise CourseInputError(f"exercise {exercise.id}: cannot plant the bug: {problem}")
    limit = Limit()

    def unmutated() -> Run:
        run = runner.pytest(clean, files, plain=False)
        limit.measured(run.seconds)
        return run

    pool = ThreadPoolExecutor(max_workers=1)
    with pool, interruptible(runner, pool):
        before = pool.submit(unmutated)
        after = runner.pytest(planted, files, limit, plain=False)
        return before.result(), after


def predict(runner: Runner, exercise: Exercise, prediction: str, record_path: Path) -> int:
    """Plant the bug in a copy, run the stage's checks beside an unmutated copy, and say what
    the bug turned red, which check the exercise names, and whether the prediction named it."""
    checks = stage_checks(exercise)
    named = chosen(prediction, [node for node, _ in checks])
    return told(exercise, named, dict(checks), side_by_side(runner, exercise), record_path)


def told(
    exercise: Exercise,
    named: str,
    golden: dict[str, bool],
    runs: tuple[Run, Run],
    record_path: Path,
) -> int:
    """What the bug turned red, the check the exercise names, and whether `named` was it;
    `runs` are the stage's checks without the bug and with it."""
    before, after = runs
    if after.code is None:
        print(f"the checks were stopped by their time limit ({after.limit:.0f} s, ten times")
        print("what they took without the bug): the bug makes one hang; nothing is credited")
        return 1
    already = {node for node, state in before.results.items() if state == "failed"}
    red = sorted(n for n, state in after.results.items() if state == "failed" and n not in already)
    print(f"With the bug planted, {len(red)} of {len(after.results)} checks turned red:")
    for node in red:
        print(f"  red: {node}\n       {after.messages.get(node, '')[:100]}")
    if already:
        names = ", ".join(sorted(already)[:3]) + (", ..." if len(already) > 3 else "")
        print(f"({len(already)} were red without the bug too, and are left out: {names})")
    print(f"\nThe check this exercise names: {exercise.check}")
    for node in exercise.also:
        print(f"  and, naming the same failure: {node}")
    was_red = any(belongs(node, named) for node in red)
    right = named in exercise.own and was_red
    print(f"You predicted {named}: {'right' if right else 'wrong'}.")
    if not right:
        print(textwrap.indent(wrapped(why_not(named, red, already, golden[named], exercise)), "  "))
    print("Credited as done, right or wrong: the red checks above are what it teaches.")
    print(wrapped(f"Why the bug matters: {exercise.why}"))
    credit(record_path, exercise, {"predicted": named, "right": right, "red": red})
    return 0


def why_not(named: str, red: list[str], already: set[str], golden: bool, exercise: Exercise) -> str:
    """One line: why the check a wrong prediction named is not this bug's."""
    if any(belongs(node, named) for node in already):
        return ("It was red without the bug too, so this run cannot tell: get the checks green "
                "first (make progress shows which are red).")  # fmt: skip
    was_red = any(belongs(node, named) for node in red)
    if named in exercise.own:
        return "It stayed green here, though `make mutate` proves it red: has the code changed?"
    if not was_red:
        return "It stayed green with the bug planted: nothing it asserts depends on that line."
    if golden:
        return ("It turned red too, but only as any change would: it holds a whole output to a "
                "reviewed copy, and names no one failure.")  # fmt: skip
    return "It turned red too, but it is not the check that names this failure."


def verify(runner: Runner, exercise: Exercise, record_path: Path) -> int:
    """A written check: it must pass on the code as it is, and fail with the bug planted."""
    tree = runner.copy(exercise.id)
    first = runner.pytest(tree, [exercise.check], plain=False)
    states = claimed(first.results, exercise.check)
    if "skipped" in states:
        print("your check still skips: remove its pytest.skip line, then run this again")
        return 1
    if set(states) != {"passed"}:
        print(f"{first.output}\nyour check does not pass on the code as it is")
        print(f"({states or 'not collected'}): it must, and fail only with the bug planted")
        return 1
    limit = Limit()
    limit.measured(first.seconds)
    problem = plant(tree, exercise)
    if problem is not None:
        raise CourseInputError(f"exercise {exercise.id}: cannot plant the bug: {problem}")
    second = runner.pytest(tree, [exercise.check], limit, plain=False)
    if second.code is None:
        print(f"with the bug planted, your check was stopped by its time limit "
              f"({second.limit:.0f} s, ten times what it took without the bug)")  # fmt: skip
        return 1
    if "failed" not in claimed(second.results, exercise.check):
        print("your check passes on the code as it is, and with the bug planted too: it does")
        print("not notice the bug yet.")
        print(wrapped(f"A second hint: {exercise.second_hint}"))
        return 1
    print(f"verified: {exercise.check} passes on the code and fails with the bug planted")
    print(f"  with the bug: {second.messages.get(exercise.check, '')[:100]}")
    written = (ROOT / exercise.check_file).read_text(encoding="utf-8")
    credit(record_path, exercise, {"verified": True, "check": written})
    print(beside_the_reference(exercise, written))
    return 0


def function_source(text: str, name: str) -> str:
    """The source of the function `name` in a module's text (the whole text if not found)."""
    found = function(text, name)
    return (ast.get_source_segment(text, found) if found else None) or text


def beside_the_reference(exercise: Exercise, written: str, root: Path = ROOT) -> str:
    """Your check, then the course's reference check (at a tag, where it is kept apart)."""
    name = exercise.check.split("::", 1)[1]
    reference = root / SOLUTIONS / Path(exercise.check_file).name
    if not reference.is_file():
        return "\n(this is the repository the course is built from: your check is the reference)"
    rule = "-" * 72
    return (
        f"\nyour check:\n{rule}\n{function_source(written, name)}\n{rule}\n"
        f"the course's reference ({reference.relative_to(root)}), to compare:\n{rule}\n"
        f"{reference.read_text(encoding='utf-8').rstrip()}\n{rule}"
    )


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
            print(f"every exercise of this checkout is done ({len(exercises)}): make next")
            return 0
        show(waiting[0], record)
        return 0
    exercise = next((e for e in exercises if e.id == args.id), None)
    if exercise is None:
        raise CourseInputError(
            f"no exercise {args.id!r} at this stage ({len(exercises)} here; the stage "
            "READMEs list them, and `make exercise` shows the next)"
        )
    if exercise.kind == "write" and args.predict is not None:
        raise CourseInputError(f"exercise {exercise.id} is a check to write, not a prediction")
    if (exercise.kind == "write" and is_stub(exercise)) or (
        exercise.kind == "predict" and args.predict is None
    ):
        show(exercise, record)
        return 0
    with tempfile.TemporaryDirectory(prefix="exercise-", ignore_cleanup_errors=True) as scratch:
        runner = Runner(Path(scratch))
        if exercise.kind == "write":
            return verify(runner, exercise, args.record)
        return predict(runner, exercise, str(args.predict), args.record)


if __name__ == "__main__":
    sys.exit(run_cli(main))  # bad input: one line, exit 2; Ctrl-C: exit 130
