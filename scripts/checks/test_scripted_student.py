"""The exercise runner end to end, as a student uses it: a prediction right and one wrong, a
reference check written and verified, each credited exactly once. Main keeps this check; at a
tag, the course check's scripted student does all of it and more (scripts/course_check.py)."""

from scripts.checks.test_exercise import AT_MAIN, a_copy, exercise, first, reference_of
from scripts.exercise import current, read_record, stage_checks
from scripts.manifest import load_manifest
from scripts.progress import exercises_line


def test_a_scripted_student_is_credited_exactly_the_prediction_and_the_check(tmp_path):
    tree, record = a_copy(tmp_path), tmp_path / "student.json"
    predicted, written = first("predict"), first("write")
    nodes = [node for node, _ in stage_checks(predicted, tree)]
    number = nodes.index(predicted.check) + 1  # as the student reads it in the list
    answer = exercise(predicted.id, "--predict", str(number), record=record, root=tree)
    assert answer.returncode == 0, answer.stdout + answer.stderr
    assert f"  red: {predicted.check}\n" in answer.stdout
    assert f"The check this exercise names: {predicted.check}\n" in answer.stdout
    assert f"You predicted {predicted.check}: right." in answer.stdout
    # the reference check, written into place: proven, credited, shown beside the reference
    (tree / written.check_file).write_text(reference_of(written), encoding="utf-8")
    verified = exercise(written.id, record=record, root=tree)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.startswith(f"verified: {written.check} passes")
    beside = "the course's reference (" if not AT_MAIN else "your check is the reference"
    assert beside in verified.stdout
    assert set(read_record(record)) == {predicted.id, written.id}
    assert read_record(record)[written.id]["check"] == reference_of(written)  # what was proven
    line = exercises_line(record, tree)
    assert line.startswith(f"exercises: 2 of {len(current(load_manifest()))} done")
    assert f"predicted right: {predicted.id}" in line
    assert f"checks written and verified: {written.id}" in line
    # a second prediction, of a check that stayed green: credited all the same, as wrong
    green = next(node for node in nodes if f"red: {node}" not in answer.stdout)
    again = exercise(predicted.id, "--predict", green, record=record, root=tree)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"You predicted {green}: wrong.\n  It stayed green with the bug planted" in again.stdout
    assert "Credited as done, right or wrong" in again.stdout
    entry = read_record(record)[predicted.id]
    assert (entry["predicted"], entry["right"]) == (green, False)
    assert predicted.check in entry["red"]  # the claimed check turned red all the same
