"""The student's exercises: a fresh checkout credits none; a scripted student who predicts one
and writes one check is credited exactly those two; a credit goes stale when its files change;
the course's own runner never writes the student's record."""

import json
import subprocess
import sys
from pathlib import Path

from scripts.course import load_course
from scripts.exercise import current, done, read_record, stage_checks
from scripts.mutate import load_manifest
from scripts.progress import exercises_line

ROOT = Path(__file__).resolve().parents[2]


def exercise(*args, record):
    return subprocess.run(
        [sys.executable, "scripts/exercise.py", *args, "--record", str(record)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def first(kind):
    return next(e for e in current(load_manifest()) if e.kind == kind)


def test_a_fresh_checkout_credits_none_and_names_the_next_exercise(tmp_path):
    record, exercises = tmp_path / "student.json", current(load_manifest())
    assert exercises_line(record).splitlines()[0] == f"exercises: 0 of {len(exercises)} done"
    shown = exercise(record=record)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith(f"exercise {exercises[0].id} (stage {exercises[0].stage}")
    assert "hint: " in shown.stdout and not record.exists()  # showing credits nothing


def test_a_scripted_student_is_credited_exactly_the_prediction_and_the_check(tmp_path):
    record, predicted, written = tmp_path / "student.json", first("predict"), first("write")
    number = stage_checks(predicted).index(predicted.check) + 1  # as the student reads it
    answer = exercise(predicted.id, "--predict", str(number), record=record)
    assert answer.returncode == 0, answer.stdout + answer.stderr
    assert f"  red: {predicted.check}\n" in answer.stdout
    assert f"you predicted {predicted.check}: right" in answer.stdout
    verified = exercise(written.id, record=record)
    check_file = ROOT / written.check.split("::", 1)[0]
    reference = "# " + ">>> main"  # the mark of a block the built course leaves out
    if reference in check_file.read_text(encoding="utf-8"):  # the reference is in place
        assert verified.returncode == 0, verified.stdout + verified.stderr
        assert verified.stdout.startswith(f"verified: {written.check} passes")
        credited = {predicted.id, written.id}
    else:  # at a tag: the stub is not written yet, and earns nothing
        assert verified.returncode == 1 and "No check at this stage catches it" in verified.stdout
        credited = {predicted.id}
    assert set(read_record(record)) == credited
    line = exercises_line(record)
    assert line.startswith(f"exercises: {len(credited)} of {len(current(load_manifest()))} done")
    assert f"predicted right: {predicted.id}" in line
    # a second prediction, of a check that stayed green: credited all the same, as wrong
    green = next(node for node in stage_checks(predicted) if node not in answer.stdout)
    again = exercise(predicted.id, "--predict", green, record=record)
    assert again.returncode == 0 and f"you predicted {green}: wrong" in again.stdout
    entry = read_record(record)[predicted.id]
    assert (entry["predicted"], entry["right"]) == (green, False)
    assert predicted.check in entry["red"]  # the claimed check turned red all the same


def test_a_credit_goes_stale_when_the_files_change_and_a_broken_record_is_none(tmp_path):
    record, predicted = tmp_path / "student.json", first("predict")
    record.write_text(json.dumps({predicted.id: {"fingerprint": "0" * 64, "right": True}}))
    assert not done(read_record(record), predicted)
    assert f"changed since done (do them again): {predicted.id}" in exercises_line(record)
    record.write_text("{not json")
    assert exercises_line(record).startswith("exercises: 0 of ")


def test_an_unknown_exercise_or_prediction_is_one_line(tmp_path):
    record = tmp_path / "student.json"
    unknown = exercise("no-such-exercise", record=record)
    assert unknown.returncode == 2 and unknown.stderr.startswith("error: no exercise")
    bad = exercise(first("predict").id, "--predict", "99999", record=record)
    assert bad.returncode == 2 and "name one check, by its number" in bad.stderr
    assert not record.exists()


def test_the_runner_of_the_course_never_writes_the_students_record():
    student = ROOT / "build" / "progress" / "student.json"
    before = student.read_bytes() if student.exists() else None
    proven = subprocess.run(
        [sys.executable, "scripts/mutate.py", first("predict").id],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proven.returncode == 0, proven.stdout + proven.stderr
    assert (student.read_bytes() if student.exists() else None) == before


def test_every_stage_has_three_exercises_one_of_them_a_check_to_write():
    course, exercises = load_course(), current(load_manifest())
    for stage in course.stages:
        mine = [e for e in exercises if e.stage == stage.number]
        writes = [e for e in mine if e.kind == "write"]
        assert len(mine) >= 3 and writes, stage.name
        for written in writes:
            path, name = written.check.split("::", 1)
            assert path.startswith(f"{stage.directory}/checks/test_exercise_"), written.id
            # what the student finds at the tag: pytest imported, and a stub that skips
            text = (ROOT / path).read_text(encoding="utf-8")
            assert "\nimport pytest\n" in text.split("# " + ">>> main", 1)[0], written.id
            stub = text.split(f"def {name}(", 1)[1].rsplit("# " + "<<<", 1)[-1]
            assert "pytest.skip(" in stub and f"exercise {written.id}: write" in stub, written.id
