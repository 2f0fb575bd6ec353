"""The mutation runner: it proves each bug red on a copy, and never touches the working tree."""

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scripts.copies import NOT_COPIED, Runner
from scripts.course import Course, Stage, collected, junit_results, load_course
from scripts.exercise import side_by_side, stage_checks, told
from scripts.manifest import MANIFEST, ROOT, Exercise, load_manifest, misplaced, plant
from stages.s01_model.errors import CourseInputError

pytestmark = pytest.mark.runner  # these start the runner; the runner's --full leaves them out
TIE = "tie-is-no-longer-a-tie"
DENOMINATOR = "denominator-of-scored-cases-only"
GOLDEN_FILE = "stages/s08_eval/checks/test_golden.py"
# a check that the tie exercise turns red besides the one it claims
COLLATERAL = (
    "stages/s08_eval/checks/test_report.py::test_the_command_prints_the_report_with_both_halves"
)


def fingerprint() -> str:
    """A hash of every file git would see in the working tree (tracked or not, not ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.split(b"\0")  # fmt: skip
    digest = hashlib.sha256()
    for name in sorted(n for n in listed if n):
        path = ROOT / name.decode()
        digest.update(name + b"\0" + (path.read_bytes() if path.is_file() else b"<gone>"))
    return digest.hexdigest()


def mutate(*args, tmp_path=None, manifest=None, root=ROOT):
    """Run the runner of the course at `root` (this one by default), as a student would."""
    env = {**os.environ}
    if tmp_path is not None:
        env["TMPDIR"] = str(tmp_path)
    command = [sys.executable, "scripts/mutate.py", *args]
    if manifest is not None:
        command += ["--manifest", str(manifest)]
    return subprocess.run(command, cwd=root, capture_output=True, text=True, env=env, timeout=300)


def manifest_with(tmp_path, copies=1, **changes):
    """A manifest of the tie exercise with some of its fields changed; with `copies`, that
    many of it, each under an id of its own."""
    exercise = next(e for e in load_manifest() if e.id == TIE).__dict__ | changes
    lines = []
    for number in range(copies):
        entry = exercise | ({"id": f"{exercise['id']}-{number}"} if copies > 1 else {})
        lines += ["[[exercise]]"] + [f"{key} = {json.dumps(value)}" for key, value in entry.items()]
    path = tmp_path / "exercises.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_every_exercise_names_a_stage_a_file_and_an_anchor_found_once():
    for exercise in load_manifest():
        text = (ROOT / exercise.file).read_text()
        assert text.count(exercise.find) == 1, exercise.id
        assert exercise.hint.endswith("?"), exercise.id  # a question, not the answer
        assert (ROOT / exercise.check.split("::")[0]).is_file(), exercise.id


@pytest.mark.failure_mode
def test_every_exercise_is_listed_under_the_stage_that_brings_its_file():
    exercises = load_manifest()
    assert misplaced(exercises, load_course()) == []
    # the mirrored half, on a two-stage course: an entry filed under the wrong stage, or
    # checked by a later stage, is found
    course = Course((), (Stage(1, "one", "s/one", ()), Stage(2, "two", "s/two", ("f/two.py",))), ())
    wrong_stage = Exercise("a", 1, "f/two.py", "x", "y", "s/two/checks/t.py::c", "?", "")
    later_check = Exercise("b", 1, "s/one/m.py", "x", "y", "s/two/checks/t.py::c", "?", "")
    assert misplaced([wrong_stage, later_check], course) == [
        "a: stage 1, but f/two.py comes with stage 2",
        "b: its check comes with stage 2",
    ]


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("find", "replace", "problem"),
    [
        ("no such line", "x", "anchor found 0 times in lib.py, expected exactly once"),
        ("x = 1", "x = 2", "anchor found 2 times in lib.py, expected exactly once"),
        ("y = 2", "y = 2", "the replacement changes nothing"),
        ("y = 2", "y = (2", "the mutated file does not compile: '(' was never closed (line 2)"),
    ],
)
def test_a_bug_that_cannot_be_planted_is_refused(tmp_path, find, replace, problem):
    (tmp_path / "lib.py").write_text("x = 1\ny = 2\nx = 1\n")
    exercise = Exercise("e", 8, "lib.py", find, replace, "check", "hint?", "why")
    assert plant(tmp_path, exercise) == problem
    assert (tmp_path / "lib.py").read_text() == "x = 1\ny = 2\nx = 1\n"


def test_junit_results_name_each_parameter(tmp_path):
    path = tmp_path / "junit.xml"
    path.write_text(
        "<testsuites><testsuite>"
        '<testcase classname="stages.s08_eval.checks.test_x" name="test_a[1]"/>'
        '<testcase classname="stages.s08_eval.checks.test_x" name="test_a[2]"><failure/></testcase>'
        '<testcase classname="" name="stages.s08_eval.checks.test_y"><error/></testcase>'
        "</testsuite></testsuites>"
    )
    assert junit_results(path) == {
        "stages/s08_eval/checks/test_x.py::test_a[1]": "passed",
        "stages/s08_eval/checks/test_x.py::test_a[2]": "failed",
    }


@pytest.mark.failure_mode
def test_a_manifest_entry_missing_a_key_is_named(tmp_path):
    path = tmp_path / "exercises.toml"
    path.write_text('[[exercise]]\nid = "x"\nstage = 8\n')
    with pytest.raises(CourseInputError, match=r"exercise 'x': missing 'file'"):
        load_manifest(path)


def test_an_exercise_is_killed_in_a_copy_and_the_tree_is_untouched(tmp_path):
    before = fingerprint()
    result = mutate(TIE, "--json", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report == {
        "exercises": [
            {"id": TIE, "check": next(e.check for e in load_manifest() if e.id == TIE),
             "verdict": "KILLED"}
        ],
        "killed": 1,
        "total": 1,
    }  # fmt: skip
    assert fingerprint() == before
    assert list(tmp_path.iterdir()) == []  # the temporary copies are gone


@pytest.mark.failure_mode
def test_a_missing_anchor_is_an_error_and_the_run_fails(tmp_path):
    result = mutate("--json", manifest=manifest_with(tmp_path, find="A_FIRST = {gone}"))
    assert result.returncode == 1
    (entry,) = json.loads(result.stdout)["exercises"]
    assert entry["verdict"] == "ERROR" and entry["detail"].startswith("anchor found 0 times")


@pytest.mark.failure_mode
def test_a_bug_the_check_cannot_see_survives_and_the_run_fails(tmp_path):
    # Adding a comment to the line plants no bug: the check must pass, so the exercise survives.
    harmless = 'A_FIRST = {"first": "a", "second": "b", "tie": "tie"}  # unchanged behaviour'
    result = mutate("--json", manifest=manifest_with(tmp_path, replace=harmless))
    assert result.returncode == 1
    assert json.loads(result.stdout)["exercises"][0]["verdict"] == "SURVIVED"


@pytest.mark.failure_mode
def test_a_claimed_check_that_does_not_exist_is_an_error_not_a_kill(tmp_path):
    check = "stages/s08_eval/checks/test_detectors.py::test_nothing_of_the_kind"
    result = mutate("--json", manifest=manifest_with(tmp_path, check=check))
    assert result.returncode == 2  # the unmutated baseline cannot pass a check that is absent
    assert "fails its claimed checks" in result.stderr


def test_full_lists_the_collateral_reds(tmp_path):
    # --full runs every check of the tree against the bug: on this course, a minute. What it
    # lists does not depend on how many checks there are, so the runner is proven on a copy of
    # the course that keeps two check files, the claimed check's and one more the bug turns red.
    kept = {next(e for e in load_manifest() if e.id == TIE).check, COLLATERAL}
    course = tmp_path / "course"
    shutil.copytree(ROOT, course, ignore=NOT_COPIED)
    for check in [
        *course.glob("stages/*/checks/test_*.py"),
        *course.glob("scripts/checks/test_*.py"),
        *course.glob("toolkit/checks/test_*.py"),
    ]:
        if not any(node.startswith(f"{check.relative_to(course)}::") for node in kept):
            check.unlink()
    (tmp_path / "scratch").mkdir()
    result = mutate(TIE, "--full", "--json", tmp_path=tmp_path / "scratch", root=course)
    (entry,) = json.loads(result.stdout)["exercises"]
    assert entry["verdict"] == "KILLED"
    assert entry["check"] not in entry["collateral"]
    assert any(
        "test_the_command_prints_the_report_with_both_halves" in n for n in entry["collateral"]
    )
    assert COLLATERAL in entry["collateral"]


def test_show_prints_the_diff_the_hint_and_the_red_check():
    result = mutate("--show", TIE)
    assert result.returncode == 0, result.stderr
    assert '-A_FIRST = {"first": "a", "second": "b", "tie": "tie"}' in result.stdout
    assert '+A_FIRST = {"first": "a", "second": "b", "tie": "a"}' in result.stdout
    assert "hint: If a judge calls a pair a tie in both orders" in result.stdout
    assert f"FAILED {next(e.check for e in load_manifest() if e.id == TIE)}" in result.stdout


@pytest.mark.failure_mode
@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL])
def test_an_interrupted_or_killed_run_leaves_the_tree_as_it_was(tmp_path, how):
    # A long run, one exercise at a time: forty copies of the tie exercise, so that the
    # baseline is one check and the run is far from over when the signal comes.
    manifest = manifest_with(tmp_path, copies=40)
    scratch = tmp_path / "scratch"  # the runner's temporary folder
    scratch.mkdir()
    before = fingerprint()
    runner = subprocess.Popen(
        [sys.executable, "scripts/mutate.py", "--jobs", "1", "--manifest", str(manifest)],
        cwd=ROOT, env={**os.environ, "TMPDIR": str(scratch)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert runner.stdout is not None
    runner.stdout.readline()  # the first exercise is proven: the second one is running
    runner.send_signal(how)
    runner.wait(timeout=60)
    assert fingerprint() == before
    if how == signal.SIGINT:
        assert runner.returncode == 130
        time.sleep(0.2)
        assert list(scratch.iterdir()) == []  # copies removed, checks stopped


def test_the_stage_readme_lists_its_exercises():
    for exercise in load_manifest(MANIFEST):
        stage = next(Path(ROOT, "stages").glob(f"s{exercise.stage:02d}_*"))
        assert f"`{exercise.id}`" in (stage / "README.md").read_text(), exercise.id


def test_each_lesson_lists_exactly_its_stage_s_exercises_with_what_makes_them_dangerous():
    course, exercises = load_course(), load_manifest()
    for number in sorted({exercise.stage for exercise in exercises}):
        readme = (ROOT / course.stage(number).directory / "README.md").read_text()
        listed = re.findall(r"^- `([a-z0-9-]+)` — (.+)$", readme, flags=re.MULTILINE)
        assert listed == [(e.id, e.why) for e in exercises if e.stage == number], number


@pytest.fixture(scope="module")
def denominator_runs(tmp_path_factory):
    """The denominator exercise's checks run once without the bug and once with it, as
    `make exercise ID=... PREDICT=N` runs them; the predictions below are judged on them (the
    scripted student's check runs a prediction end to end, over every check of its stage).
    Only the files of the checks these predictions name run, the exercise's own, the one listed
    beside it and the golden one: not all of stage 8's, which take more than twice as long."""
    exercise = next(e for e in load_manifest() if e.id == DENOMINATOR)
    runner = Runner(tmp_path_factory.mktemp("predicted"))
    named = [exercise.check, *exercise.also, GOLDEN_FILE]
    files = sorted({node.split("::", 1)[0] for node in named})
    return exercise, dict(stage_checks(exercise)), side_by_side(runner, exercise, files)


def predicted_denominator(check, runs, tmp_path, capsys):
    """The denominator exercise predicted as a student does it; what it said, and the record."""
    exercise, golden, both = runs
    record = tmp_path / "student.json"
    assert told(exercise, check, golden, both, record) == 0
    return capsys.readouterr(), record


@pytest.mark.failure_mode
@pytest.mark.xdist_group("denominator")  # one worker: the runs are made once
def test_a_prediction_of_a_golden_check_is_wrong_though_the_bug_turns_it_red(
    denominator_runs, tmp_path, capsys
):
    # The bug shrinks the denominator; the golden text report turns red for it, as it does for
    # almost any change to the report. Naming it is not naming the failure.
    golden = f"{GOLDEN_FILE}::test_the_text_report_is_the_reviewed_one"
    result, record = predicted_denominator(golden, denominator_runs, tmp_path, capsys)
    assert f"  red: {golden}\n" in result.out  # it did turn red: that is the trap
    own = next(e.check for e in load_manifest() if e.id == DENOMINATOR)
    assert f"  red: {own}\n" in result.out
    assert f"The check this exercise names: {own}\n" in result.out
    assert f"You predicted {golden}: wrong.\n  It turned red too, but only as any change" in (
        result.out
    )
    assert json.loads(record.read_text())[DENOMINATOR]["right"] is False


def test_no_exercise_counts_a_golden_check_as_its_own_beside_its_claim():
    # only the files the `also` lists name need collecting (and the golden one, to see it)
    files = {c.split("::", 1)[0] for e in load_manifest() for c in e.also} | {GOLDEN_FILE}
    found = collected(ROOT, tuple(sorted(files)))
    golden = {node.split("[", 1)[0] for node, marks in found if "golden" in marks}
    assert f"{GOLDEN_FILE}::test_the_text_report_is_the_reviewed_one" in golden  # it is seen
    assert [(e.id, c) for e in load_manifest() for c in e.also if c in golden] == []


@pytest.mark.xdist_group("denominator")  # one worker: the runs are made once
def test_a_prediction_of_a_check_listed_beside_the_claimed_one_is_right(
    denominator_runs, tmp_path, capsys
):
    (beside,) = next(e.also for e in load_manifest() if e.id == DENOMINATOR)
    result, record = predicted_denominator(beside, denominator_runs, tmp_path, capsys)
    assert f"  and, naming the same failure: {beside}\n" in result.out
    assert f"You predicted {beside}: right." in result.out
    assert json.loads(record.read_text())[DENOMINATOR]["right"] is True
