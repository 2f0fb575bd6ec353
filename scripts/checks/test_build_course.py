"""The course builder: marked blocks, cut manifests, traces of later stages, and the tags."""

import re
import subprocess
import sys

import pytest

from scripts.build_course import (
    Blob,
    build,
    keep_entries,
    keep_rows,
    read_revision,
    read_worktree,
    traces,
    trees,
    unmark,
)
from scripts.course import ROOT, TABLE_END, TABLE_START, Course, Stage, load_course
from stages.s01_model.errors import CourseInputError

COURSE = load_course()
# The builder reads git; a copy without its history (the mutation runner's) has nothing to build.
needs_git = pytest.mark.skipif(not (ROOT / ".git").exists(), reason="not a git checkout")


def test_a_marked_block_appears_from_its_stage_on_without_its_markers():
    text = "a\n# >>> stage 2\nb\n# <<<\nc\n# >>> main\nd\n# <<<\n"
    assert unmark("f.toml", text, 1) == "a\nc\n"
    assert unmark("f.toml", text, 2) == "a\nb\nc\n"
    assert unmark("f.toml", text, 9) == "a\nb\nc\n"  # main's blocks are in no tag


def test_markdown_marks_whole_lines_or_part_of_one():
    text = (
        "Intro<!-- >>> stage 3 -->, and more<!-- <<< -->.\n"
        "<!-- >>> stage 2 -->\n## Later\n<!-- <<< -->\nEnd\n"
    )
    assert unmark("R.md", text, 1) == "Intro.\nEnd\n"
    assert unmark("R.md", text, 2) == "Intro.\n## Later\nEnd\n"
    assert unmark("R.md", text, 3) == "Intro, and more.\n## Later\nEnd\n"


def test_python_is_laid_out_again_once_cut():
    # ruff wants blank lines around a marker among imports; once cut, it wants none there
    text = (
        "import argparse\n\n# >>> stage 2\nimport json\n\n# <<<\nimport sys\n\n"
        "print(argparse, sys)\n"
    )
    assert unmark("m.py", text, 1) == "import argparse\nimport sys\n\nprint(argparse, sys)\n"
    kept = unmark("m.py", text, 2)
    assert kept == "import argparse\nimport json\nimport sys\n\nprint(argparse, sys)\n"


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("a\n# >>> stage 2\nb\n", "f.toml:2: a block marker without its other half"),
        ("a\n# <<<\n", "f.toml:2: a block marker without its other half"),
        ("# >>> stage 2\n# >>> stage 3\nb\n# <<<\n# <<<\n", "f.toml: a marked block inside"),
    ],
)
def test_a_broken_mark_is_refused_with_its_place(text, problem):
    with pytest.raises(CourseInputError, match=problem):
        unmark("f.toml", text, 5)


def test_a_tag_keeps_the_manifest_entries_and_table_rows_of_its_stages():
    manifest = '# head\n\n[[stage]]\nnumber = 1\n\n[[stage]]\nnumber = 2\ntitle = "x"\n'
    assert keep_entries("c.toml", manifest, "stage", "number", 1) == (
        "# head\n\n[[stage]]\nnumber = 1\n"
    )
    with pytest.raises(CourseInputError, match="entry has no whole-number stage"):
        keep_entries("e.toml", '[[exercise]]\nid = "x"\n', "exercise", "stage", 1)
    head, one = "| tag |\n|---|\n", "| stage-01 | [a](a) | A | 3 (+3) | 1 (+1) | 0 (+0) |\n"
    two = "| stage-02 | [b](b) | B | 5 (+2) | 1 (+0) | 0 (+0) |\n"
    readme = f"top\n{TABLE_START}\n{head}{one}{two}{TABLE_END}\nend\n"
    assert keep_rows(readme, 1) == f"top\n{TABLE_START}\n{head}{one}{TABLE_END}\nend\n"
    assert keep_rows(readme, 2) == readme


def small_course():
    """Two stages; stage 2 brings tools.py and needs numpy."""
    return Course(
        ("pyproject.toml",),
        (Stage(1, "One", "stages/s01_one", ()), Stage(2, "Two", "stages/s02_two", ("f/tools.py",))),
        (),
    )


def pyproject(*dependencies):
    return Blob("100644", f"[project]\ndependencies = {list(dependencies)!r}\n".encode())


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("line", "named"),
    [
        ("Stage 2 will grade this.", "'Stage 2'"),
        ("see stages 1-2", "'stages 1-2'"),
        ("from stages.s02_two import x", "'s02_t'"),
        ("load f/tools.py first", "'f/tools.py' (stage-02)"),
        ("tools.py has it", "'tools.py' (stage-02)"),
        ("from f.tools import helper", "'f.tools' (stage-02)"),
        ("pip install numpy", "'numpy' (a dependency of a later stage)"),
    ],
)
def test_a_tag_that_names_a_later_stage_is_caught(line, named):
    files = {
        "pyproject.toml": pyproject("pytest", "numpy"),
        "stages/s01_one/a.py": Blob("100644", line.encode()),
        "stages/s02_two/b.py": Blob("100644", b""),
        "f/tools.py": Blob("100644", b""),
    }
    tree = {
        "pyproject.toml": pyproject("pytest"),
        "stages/s01_one/a.py": files["stages/s01_one/a.py"],
    }
    assert traces(small_course(), files, tree, 1) == [f"stages/s01_one/a.py:1: {named}"]


def test_what_a_tag_may_say_of_itself_is_not_a_trace():
    # the mirrored half: its own stage, a stage that does not exist, and words of its own
    files = {"pyproject.toml": pyproject("pytest", "numpy"), "f/tools.py": Blob("100644", b"")}
    text = b"stage 1 and stage-01; a check's made-up s10_x; a tooling note"
    tree = {"pyproject.toml": pyproject("pytest"), "stages/s01_one/a.py": Blob("100644", text)}
    assert traces(small_course(), files, tree, 1) == []


@needs_git
def test_no_tag_of_this_course_names_a_later_stage():
    # trees() refuses to build when any tag does; each tag keeps exactly its stages' entries
    for at, (_, tree) in enumerate(trees(read_worktree()), start=1):
        manifest = tree["course.toml"].data.decode()
        assert manifest.count("[[stage]]") == at  # stage numbers need not follow on
        assert all(not path.startswith(COURSE.maintainers) for path in tree)


def test_no_check_file_holds_a_later_stage_s_block():
    # the README's student-path table counts a check at the stage its file belongs to: a check
    # inside a later stage's block would be counted at tags that do not have it
    marked = [
        str(path.relative_to(ROOT))
        for path in sorted(ROOT.glob("stages/*/checks/test_*.py"))
        if re.search(r"^[ \t]*# >>> stage", path.read_text(), re.M)
    ]
    assert marked == [], "move each such check to the checks of the stage its block names"


@needs_git
@pytest.mark.failure_mode
def test_a_file_no_stage_brings_is_refused():
    files = read_worktree()
    files["stray.txt"] = Blob("100644", b"whose is this?")
    with pytest.raises(CourseInputError, match=r"no stage brings stray.txt"):
        trees(files)


def test_make_check_leaves_out_exactly_these_checks_and_ci_runs_them():
    # `make check` skips the [maintainers] check files, which `make maintainers-check` runs
    makefile = (ROOT / "Makefile").read_text()
    listed = re.search(r"^MAINTAINERS := (.+)$", makefile, re.M)
    assert listed is not None
    own = sorted(p for p in COURSE.maintainers if re.search(r"/checks/test_[^/]+\.py$", p))
    assert sorted(listed.group(1).split()) == own and own
    assert "$(SKIPPED)" in makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert re.search(r"^make maintainers-check$", (ROOT / ".ci" / "run").read_text(), re.M)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The course built twice from HEAD, into two folders. Its checks share one process
    (`make test` runs with --dist loadgroup): a module fixture is built once per worker."""
    files = read_revision("HEAD")
    first, second = tmp_path_factory.mktemp("first"), tmp_path_factory.mktemp("second")
    return first, second, build(first, files), build(second, files)


def git_in(path, *args):
    return subprocess.run(
        ["git", *args], cwd=path, capture_output=True, text=True, check=True
    ).stdout.strip()


@needs_git
@pytest.mark.xdist_group("built")
def test_building_twice_gives_the_same_trees_and_commits(built):
    first, second, once, again = built
    assert [tag for tag, _, _ in once] == [stage.tag for stage in COURSE.stages]
    assert once == again  # tag, tree hash and file count, side by side
    assert git_in(first, "rev-parse", "main") == git_in(second, "rev-parse", "main")


@pytest.mark.failure_mode
def test_a_folder_that_is_not_a_build_is_not_replaced(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(CourseInputError, match="is not a course built here"):
        build(tmp_path, {})
    assert (tmp_path / "notes.txt").read_text() == "mine"


@needs_git
@pytest.mark.xdist_group("built")
def test_stage_03_cloned_fresh_passes_lint_and_its_checks(built, tmp_path):
    # the tag on its own: a clone checked out at stage-03, linted and checked with pytest
    first, _, _, _ = built
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(first), str(clone)], check=True)
    git_in(clone, "checkout", "-q", "stage-03")
    listed = [path.split("/") for path in git_in(clone, "ls-files", "stages").split()]
    stages = {parts[1] for parts in listed if len(parts) > 2}
    assert sorted(stages) == ["s01_model", "s02_tools", "s03_loop"]
    for command in (["ruff", "format", "--check", "."], ["ruff", "check", "."]):
        lint = subprocess.run([sys.executable, "-m", *command], cwd=clone, capture_output=True)
        assert lint.returncode == 0, lint.stdout.decode()[-2000:]
    # the exercise runners' own checks start runners of their own; `make course-check` runs
    # them at every tag, in the tag's `make check`
    checks = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "--ignore=scripts/checks/test_exercise.py", "--ignore=scripts/checks/test_mutate.py"],
        cwd=clone, capture_output=True, text=True,
    )  # fmt: skip
    assert checks.returncode == 0, checks.stdout[-3000:]


@pytest.mark.failure_mode
def test_a_broken_manifest_entry_is_refused_with_its_file():
    with pytest.raises(CourseInputError, match=r"c.toml: a \[\[stage\]\] entry: not valid TOML"):
        keep_entries("c.toml", "[[stage]]\nnumber = \n", "stage", "number", 1)


@pytest.mark.failure_mode
def test_the_commands_refuse_bad_folders_on_one_line(cli, one_line_error, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    one_line_error(cli("scripts.build_course", "--out", str(tmp_path)), "is not a course built")
    one_line_error(cli("scripts.course_check", "--course", str(tmp_path)), "run `make course`")
