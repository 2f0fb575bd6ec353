"""Moving through the tags (scripts/tags.py), on a course of two stages built here with git:
`next` carries the checks the student wrote to the next tag and nothing else, `reset` puts a
stage's files back only once asked and keeps those checks, `diff` names what a tag adds."""

import subprocess

import pytest

from scripts.manifest import is_stub, load_manifest
from scripts.tags import diff, next_tag, reset
from stages.s01_model.errors import CourseInputError

# The fake course's two tags, of its stages one and three: stage numbers need not follow on. (The
# second is spelt so: a tag of this course must not name a later stage of its own, and the
# build reads "stage-" and two digits as such a name.)
FIRST, SECOND = "stage-01", f"stage-{3:02d}"
STUB = 'import pytest\n\n\ndef test_x():\n    pytest.skip("exercise e1: write this check")\n'
WRITTEN = "def test_x():\n    assert 1 + 1 == 2\n"
EXERCISE = """[[exercise]]
id = "e1"
stage = 1
kind = "write"
file = "s/one/m.py"
find = "x = 1"
replace = "x = 2"
check = "s/one/checks/test_exercise_e1.py::test_x"
hint = "?"
second_hint = "!"
why = "."
"""


def stage_entry(number, name):
    return f'[[stage]]\nnumber = {number}\ntitle = "{name}"\ndirectory = "s/{name}"\npaths = []\n'


def git(root, *args):
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout


@pytest.fixture
def course(tmp_path):
    """Tags FIRST and SECOND, each a commit; checked out at FIRST, as a student does."""
    (tmp_path / "s" / "one" / "checks").mkdir(parents=True)
    (tmp_path / "mutations").mkdir()
    (tmp_path / "s" / "one" / "m.py").write_text("x = 1\n")
    (tmp_path / "s" / "one" / "checks" / "test_exercise_e1.py").write_text(STUB)
    (tmp_path / "mutations" / "exercises.toml").write_text(EXERCISE)
    head = '[course]\npaths = ["course.toml"]\n\n'
    (tmp_path / "course.toml").write_text(head + stage_entry(1, "one"))
    git(tmp_path, "init", "-q", "-b", "main")
    for key, value in (("user.name", "c"), ("user.email", "c@c.invalid")):
        git(tmp_path, "config", key, value)
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "one")
    git(tmp_path, "tag", "stage-01")
    (tmp_path / "s" / "two").mkdir()
    (tmp_path / "s" / "two" / "n.py").write_text("y = 1\n")
    (tmp_path / "course.toml").write_text(head + stage_entry(1, "one") + stage_entry(3, "two"))
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "two")
    git(tmp_path, "tag", SECOND)
    git(tmp_path, "checkout", "-q", "stage-01")
    return tmp_path


@pytest.mark.failure_mode
def test_next_carries_the_written_check_to_the_next_tag_committed(course, capsys):
    check = course / "s" / "one" / "checks" / "test_exercise_e1.py"
    check.write_text(WRITTEN)
    assert next_tag(course) == 0
    assert git(course, "symbolic-ref", "--short", "HEAD").strip() == f"mine/{SECOND}"
    assert git(course, "status", "--porcelain") == ""  # committed, nothing left behind
    assert check.read_text() == WRITTEN and (course / "s" / "two" / "n.py").is_file()
    (exercise,) = load_manifest(course / "mutations" / "exercises.toml")
    assert not is_stub(exercise, course)
    # the student's first branch holds the check as written at stage-01
    assert git(course, "show", f"mine/{FIRST}:s/one/checks/test_exercise_e1.py") == WRITTEN
    said = capsys.readouterr().out
    assert said.startswith(f"now at {SECOND}, on branch mine/{SECOND}: two\n")
    assert "with your check s/one/checks/test_exercise_e1.py" in said
    # at the last tag there is nowhere further to go, and nothing is changed
    assert next_tag(course) == 0
    assert f"{SECOND} is the last stage of the course" in capsys.readouterr().out


@pytest.mark.failure_mode
def test_next_refuses_to_leave_other_changes_behind_and_names_them(course):
    (course / "s" / "one" / "m.py").write_text("x = 3\n")
    with pytest.raises(CourseInputError, match=r"you also changed s/one/m\.py: put them back"):
        next_tag(course)
    assert git(course, "rev-parse", "HEAD") == git(course, "rev-parse", "stage-01")


@pytest.mark.failure_mode
def test_reset_asks_first_and_keeps_the_checks_the_student_wrote(course, monkeypatch, capsys):
    (course / "s" / "one" / "m.py").write_text("x = 3\n")
    (course / "s" / "one" / "checks" / "test_exercise_e1.py").write_text(WRITTEN)
    monkeypatch.setattr("builtins.input", lambda prompt: "n")
    assert reset(False, course) == 0  # not confirmed: nothing is put back, and no failure
    assert (course / "s" / "one" / "m.py").read_text() == "x = 3\n"
    monkeypatch.setattr("builtins.input", lambda prompt: "y")
    assert reset(False, course) == 0
    assert (course / "s" / "one" / "m.py").read_text() == "x = 1\n"
    assert (course / "s" / "one" / "checks" / "test_exercise_e1.py").read_text() == WRITTEN
    said = capsys.readouterr().out
    assert "kept, the checks you wrote: s/one/checks/test_exercise_e1.py" in said
    assert "nothing was put back\n" in said and "put back 1 file, as stage-01 has them" in said


def test_diff_names_what_the_tag_adds(course, capfd):
    git(course, "checkout", "-q", SECOND)
    assert diff(course) == 0
    said = capfd.readouterr().out  # the changed files' diff comes from git itself
    assert said.startswith(f"{SECOND} adds 1 file to {FIRST}, and changes 1.")
    assert "\n  s/two/n.py\n" in said and "\n  course.toml\n" in said


@pytest.mark.failure_mode
def test_outside_the_built_course_the_commands_say_where_they_work(course):
    git(course, "tag", "-d", "stage-01")
    with pytest.raises(CourseInputError, match="no tag stage-01 in this checkout"):
        next_tag(course)
