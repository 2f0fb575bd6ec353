"""The student's exercises: a fresh checkout credits none; a scripted student who predicts one
and writes one check is credited exactly those two, and sees the check the exercise names; a
credit lasts until the exercise or the code its bug is planted in changes; a check the student
wrote is a check like any other, proven red by the runner, and the course's own checks pass
with it; the course's own runner never writes the student's record.

The scripted student works in a copy of this checkout, so that what they write never touches
the student's own files (the student's own checks, written or not, are the checkout's)."""

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from scripts.copies import NOT_COPIED, TEN_TIMES, Limit, wait
from scripts.course import Course, Stage, load_course
from scripts.exercise import (
    SOLUTIONS,
    STUDENT,
    current,
    done,
    read_record,
    why_not,
)
from scripts.manifest import Exercise, fingerprint, is_stub, load_manifest
from scripts.mutate import plan
from scripts.progress import exercises_line

ROOT = Path(__file__).resolve().parents[2]
AT_MAIN = bool(load_course(ROOT).maintainers)  # main keeps the tools that build the tags


def exercise(*args, record, root=ROOT):
    return subprocess.run(
        [sys.executable, "scripts/exercise.py", *args, "--record", str(record)],
        cwd=root, capture_output=True, text=True, timeout=1800,  # a safety net, not a measure
    )  # fmt: skip


def first(kind):
    return next(e for e in current(load_manifest()) if e.kind == kind)


def a_copy(tmp_path):
    """This checkout copied as the runners copy it, for a scripted student to write in."""
    tree = tmp_path / "course"
    shutil.copytree(ROOT, tree, ignore=NOT_COPIED)
    return tree


def reference_of(written):
    """The reference check of a write exercise: at a tag, where the build keeps it apart; on
    main, the exercise's own file (its stub after a `return` is never reached)."""
    kept = ROOT / SOLUTIONS / Path(written.check_file).name
    return (kept if kept.is_file() else ROOT / written.check_file).read_text(encoding="utf-8")


def a_stub(written):
    name = written.check.split("::", 1)[1]
    return (
        f'"""A stub."""\n\nimport pytest\n\n\ndef {name}(cli, tmp_path):\n'
        f'    pytest.skip("exercise {written.id}: write this check")\n'
    )


def test_a_fresh_checkout_credits_none_and_names_the_next_exercise(tmp_path):
    record, exercises = tmp_path / "student.json", current(load_manifest())
    assert exercises_line(record).splitlines()[0] == f"exercises: 0 of {len(exercises)} done"
    shown = exercise(record=record)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith(f"exercise {exercises[0].id} (stage {exercises[0].stage}")
    assert "hint: " in shown.stdout and not record.exists()  # showing credits nothing


def test_a_stub_is_shown_and_a_check_that_misses_the_bug_gets_the_second_hint(tmp_path):
    tree, record, written = a_copy(tmp_path), tmp_path / "student.json", first("write")
    (tree / written.check_file).write_text(a_stub(written), encoding="utf-8")
    shown = exercise(written.id, record=record, root=tree)
    assert shown.returncode == 0, shown.stdout + shown.stderr  # showing is no failure
    assert "No check at this stage catches it. Write the one that does" in shown.stdout
    name = written.check.split("::", 1)[1]
    (tree / written.check_file).write_text(f"def {name}():\n    assert True\n", encoding="utf-8")
    missed = exercise(written.id, record=record, root=tree)
    assert missed.returncode == 1, missed.stdout + missed.stderr
    said = " ".join(missed.stdout.split())  # as printed, wrapped to a terminal's width
    assert f"not notice the bug yet. A second hint: {written.second_hint}" in said
    assert not record.exists()  # neither earned a credit


def test_a_credit_lasts_until_the_exercise_or_the_code_it_plants_in_changes(tmp_path):
    tree, predicted, written = a_copy(tmp_path), first("predict"), first("write")
    before = fingerprint(predicted, tree)
    target = tree / predicted.file
    text = target.read_text(encoding="utf-8")
    target.write_text(text + "\n\nELSEWHERE = 1  # another part of the file\n", encoding="utf-8")
    check = tree / written.check_file
    check.write_text(check.read_text(encoding="utf-8") + "\n# the student's own edit\n")
    assert fingerprint(predicted, tree) == before  # the function the bug is in is unchanged
    assert fingerprint(written, tree) == fingerprint(written, ROOT)
    target.write_text(text.replace(predicted.find, predicted.find + "  # edited"))
    assert fingerprint(predicted, tree) != before  # the code the bug is planted in changed
    moved = Exercise(**{**vars(predicted), "replace": predicted.replace + "  # another bug"})
    assert fingerprint(moved, ROOT) != fingerprint(predicted, ROOT)  # the exercise changed


def test_a_stale_credit_is_named_and_a_broken_record_is_none(tmp_path):
    record, predicted = tmp_path / "student.json", first("predict")
    record.write_text(json.dumps({predicted.id: {"fingerprint": "0" * 64, "right": True}}))
    assert not done(read_record(record), predicted)
    assert (
        f"changed since done: the exercise or its code changed (do them again): {predicted.id}"
        in (exercises_line(record))
    )
    record.write_text("{not json")
    assert exercises_line(record).startswith("exercises: 0 of ")


def test_an_unknown_exercise_or_prediction_is_one_line(tmp_path):
    record = tmp_path / "student.json"
    unknown = exercise("no-such-exercise", record=record)
    assert unknown.returncode == 2 and unknown.stderr.startswith("error: no exercise")
    bad = exercise(first("predict").id, "--predict", "99999", record=record)
    assert bad.returncode == 2 and "name one check, by its number" in bad.stderr
    write = exercise(first("write").id, "--predict", "1", record=record)
    assert write.returncode == 2 and "is a check to write, not a prediction" in write.stderr
    assert not record.exists()


def test_the_runner_of_the_course_never_writes_the_students_record():
    before = STUDENT.read_bytes() if STUDENT.exists() else None
    proven = subprocess.run(
        [sys.executable, "scripts/mutate.py", first("predict").id],
        cwd=ROOT, capture_output=True, text=True, timeout=1800,  # a safety net, not a measure
    )  # fmt: skip
    assert proven.returncode == 0, proven.stdout + proven.stderr
    assert (STUDENT.read_bytes() if STUDENT.exists() else None) == before


def test_a_stub_is_told_from_a_written_check_by_its_body(tmp_path):
    check = tmp_path / "checks" / "test_exercise_x.py"
    check.parent.mkdir()
    written = Exercise("x", 1, "m.py", "a", "b", "checks/test_exercise_x.py::test_x", "?", "")
    for text, stub in [
        ('import pytest\n\ndef test_x(cli):\n    """Doc."""\n    pytest.skip("later")\n', True),
        ("from m import f\n\ndef test_x():\n    assert f() == 1\n", False),  # no pytest import
        ('import pytest\n\ndef test_x():\n    assert 1\n    pytest.skip("x")\n', False),
        ("def test_x(:\n", False),  # does not parse: the proof says why
        ("def test_y():\n    pass\n", False),  # not there: the proof says so
    ]:
        check.write_text(text)
        assert is_stub(written, tmp_path) is stub, text


def test_at_a_tag_a_stub_is_proven_open_and_a_written_check_red(tmp_path):
    (tmp_path / "checks").mkdir()
    one, two = Stage(1, "one", "s/one", ()), Stage(2, "two", "s/two", ())
    tag = Course((), (one, two), ())  # no maintainers' tools: a tag of the built course
    mine = [
        Exercise(f"e{n}", n, "m.py", "a", "b", f"checks/test_exercise_{n}.py::test_x", "?", "",
                 kind="write", second_hint="!")
        for n in (1, 2)
    ]  # fmt: skip
    stub = 'import pytest\n\ndef test_x():\n    pytest.skip("exercise: write this check")\n'
    for exercise_ in mine:
        (tmp_path / exercise_.check_file).write_text(stub)
    chosen = plan(mine, tag, tmp_path)
    assert (chosen.exercises, chosen.opened) == ([mine[1]], [mine[1]])  # stage 1's: left out
    (tmp_path / mine[0].check_file).write_text("def test_x():\n    assert 1\n")
    chosen = plan(mine, tag, tmp_path)
    assert (chosen.exercises, chosen.opened) == (mine, [mine[1]])  # the written one is proven
    assert plan(mine, Course((), (one, two), ("tools",)), tmp_path).opened == []  # on main


def test_every_stage_has_three_exercises_one_of_them_a_check_to_write():
    course, exercises = load_course(), current(load_manifest())
    for stage in course.stages:
        mine = [e for e in exercises if e.stage == stage.number]
        writes = [e for e in mine if e.kind == "write"]
        assert len(mine) >= 3 and writes, stage.name
        for written in writes:
            path, name = written.check.split("::", 1)
            assert path.startswith(f"{stage.directory}/checks/test_exercise_"), written.id
            assert written.second_hint, written.id
            text = (ROOT / path).read_text(encoding="utf-8")
            assert f"def {name}(" in text, written.id  # a stub or the student's check
            if AT_MAIN:  # the reference, and after it the stub the tag keeps, with pytest
                assert "\nimport pytest\n" in text.split("# " + ">>> main", 1)[0], written.id
                stub = text.split(f"def {name}(", 1)[1].rsplit("# " + "<<<", 1)[-1]
                assert "pytest.skip(" in stub and f"exercise {written.id}: write" in stub
            else:  # at a tag: the reference kept apart, and never a stub
                reference = ROOT / SOLUTIONS / Path(path).name
                assert f"def {name}(" in reference.read_text(encoding="utf-8"), written.id
                assert "pytest.skip(" not in reference.read_text(encoding="utf-8"), written.id


def test_a_run_is_stopped_at_ten_times_the_measured_time_and_not_before_it_is_known():
    limit = Limit(at_least=0.0)
    assert limit.seconds() is None  # until the unmutated run is measured: the safety net only
    limit.measured(0.05)
    assert limit.seconds() == 0.5  # ten times what the same checks took
    hangs = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)"],
        stdout=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    code, _, allowed = wait(hangs, time.monotonic(), limit)
    assert (code, allowed) == (None, 0.5)  # stopped by its limit...
    assert hangs.poll() is not None  # ...and killed, not left running
    floor = Limit()
    floor.measured(0.1)
    assert floor.seconds() == 60.0  # never under a minute: one check's run is mostly start-up


def test_a_wrong_prediction_is_told_why_its_check_was_not_the_one():
    mine, other = first("predict"), "stages/x/checks/test_x.py::test_other"
    because = [
        why_not(other, [], {other}, False, mine),  # red before the bug was planted
        why_not(other, [], set(), False, mine),  # green with the bug
        why_not(other, [other + "[1]"], set(), True, mine),  # red, as any change turns it
        why_not(other, [other], set(), False, mine),  # red, but not this failure's check
        why_not(mine.check, [], set(), False, mine),  # the right check, green here
    ]
    assert [reason.split(",")[0].split(":")[0] for reason in because] == [
        "It was red without the bug too",
        "It stayed green with the bug planted",
        "It turned red too",
        "It turned red too",
        "It stayed green here",
    ]
    assert "reviewed copy" in because[2] and "reviewed copy" not in because[3]


def test_the_readmes_state_the_time_limit_the_runners_use():
    assert TEN_TIMES == 10.0  # the READMEs say it in words
    for readme in ("README.md", "mutations/README.md"):
        text = " ".join((ROOT / readme).read_text(encoding="utf-8").split())
        assert "ten times what the" in text and "took" in text, readme
