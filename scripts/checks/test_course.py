"""The course holds together: every stage is in the manifest, has its lesson, checks and demo,
and every number a lesson quotes about its own size is the size of its code.

These are the course's own checks, not a lesson's: course.toml lists this file under
`[course]`, so every tag carries it, and the student path table in README.md counts it on a
row of its own rather than in the first stage's figures. The checks about each stage loop over
the stages instead of being parametrized by them, so that their number is the same at every
tag."""

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.course import figures, load_course, path_table, table_in
from scripts.progress import own_checks, position_line
from stages.s01_model.files import load_toml

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = load_toml(ROOT / "course.toml")
STAGES = MANIFEST["stage"]
SECTIONS = [
    "What you will learn",
    "Run it",
    "Read the files in this order",
    "What this deliberately does not prove",
]


def each_stage(check):
    """Run `check(stage)` for every stage; the stages where it fails, with what it said."""
    failed = []
    for stage in STAGES:
        try:
            check(stage)
        except AssertionError as error:
            failed.append(f"{stage['directory']}: {error}")
    return failed


def test_the_manifest_lists_every_stage_directory_in_order():
    on_disk = sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("stages/s[0-9][0-9]_*"))
    assert [stage["directory"] for stage in STAGES] == on_disk
    numbers = [stage["number"] for stage in STAGES]
    assert numbers[0] == 1 and numbers == sorted(set(numbers))  # rising; need not follow on
    for stage in STAGES:
        assert Path(stage["directory"]).name.startswith(f"s{stage['number']:02d}_")


@pytest.mark.failure_mode
def test_every_path_the_manifest_names_exists():
    # (what the build writes into a tag, `generated`, is not on main)
    named = MANIFEST["course"]["paths"] + [p for stage in STAGES for p in stage["paths"]]
    named += MANIFEST.get("maintainers", {}).get("paths", [])
    assert [path for path in named if not (ROOT / path).exists()] == []


def tracked_files():
    result = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        pytest.skip("not a git checkout: nothing to compare the manifest with")
    return result.stdout.splitlines()


@pytest.mark.failure_mode
def test_every_tracked_file_belongs_to_the_course_or_to_one_stage():
    owned = set(MANIFEST["course"]["paths"]) | {p for s in STAGES for p in s["paths"]}
    owned |= set(MANIFEST.get("maintainers", {}).get("paths", []))  # main's own tools
    directories = tuple(f"{stage['directory']}/" for stage in STAGES)
    directories += tuple(MANIFEST["course"].get("generated", []))  # what the build writes
    orphans = [f for f in tracked_files() if f not in owned and not f.startswith(directories)]
    assert orphans == []


def imports_of(later, paths):
    """(file, module) for each import in `paths` of a stage package named in `later`."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            for name in names:
                parts = name.split(".")
                if parts[0] == "stages" and len(parts) > 1 and parts[1] in later:
                    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                    found.append((str(where), name))
    return found


@pytest.mark.failure_mode
def test_no_stage_imports_a_later_stage():
    def check(stage):
        python = [ROOT / p for p in stage["paths"] if p.endswith(".py")]
        files = [*(ROOT / stage["directory"]).rglob("*.py"), *python]
        later = {Path(s["directory"]).name for s in STAGES if s["number"] > stage["number"]}
        assert imports_of(later, files) == []

    assert each_stage(check) == []


@pytest.mark.failure_mode
def test_an_import_of_a_later_stage_is_found(tmp_path):
    # the mirrored half: the finder above is not blind
    module = tmp_path / "probe.py"
    module.write_text("from stages.s99_future.x import y\nimport stages.s01_model\n")
    found = imports_of({"s99_future"}, [module])
    assert found == [(str(module), "stages.s99_future.x")]


def stage_code(directory: Path) -> list[Path]:
    """A stage's Python files, its checks not counted."""
    return [p for p in directory.rglob("*.py") if "checks" not in p.relative_to(directory).parts]


def code_lines(directory: Path) -> int:
    """Lines of Python in a stage, its checks not counted (blank lines and comments count)."""
    return sum(len(p.read_text().splitlines()) for p in stage_code(directory))


def test_each_lesson_has_its_four_parts_in_order():
    # and may end with a fifth, the Reference: options, JSON keys, exit codes, parsing rules
    def check(stage):
        readme = (ROOT / stage["directory"] / "README.md").read_text()
        parts = re.findall(r"^## (.+)$", readme, flags=re.MULTILINE)
        assert parts in (SECTIONS, [*SECTIONS, "Reference"])

    assert each_stage(check) == []


LEARN_LINES = 30  # "What you will learn": a few claims and their reasons, read in minutes


def test_each_lesson_says_what_it_teaches_in_at_most_thirty_lines():
    def check(stage):
        readme = (ROOT / stage["directory"] / "README.md").read_text(encoding="utf-8")
        learn = readme.split("## What you will learn", 1)[1].split("\n## ", 1)[0]
        written = [line for line in learn.splitlines() if line.strip()]
        assert len(written) <= LEARN_LINES, f"{len(written)} non-blank lines"

    assert each_stage(check) == []


def test_each_lesson_states_the_size_of_its_code():
    def check(stage):
        directory = ROOT / stage["directory"]
        stated = re.search(
            r"^Size: (\d+) lines of Python, checks not counted\.$",
            (directory / "README.md").read_text(),
            flags=re.MULTILINE,
        )
        assert stated is not None, "the README has no 'Size: N lines of Python' line"
        assert int(stated.group(1)) == code_lines(directory)

    assert each_stage(check) == []


def imported(path: Path) -> list[tuple[int, str]]:
    """Every module a file imports, with its line; `from a import b` names a.b as well."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found += [(node.lineno, node.module)]
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return found


def test_no_stage_imports_another_stage_s_command():
    # A command is not a library: what a later stage reuses is a module's function, never
    # another stage's __main__ (its options, its printing, its argparse objects).
    found = []
    for path in sorted((ROOT / "stages").rglob("*.py")):
        own = path.relative_to(ROOT).parts[1]
        for line, name in imported(path):
            parts = name.split(".")
            if parts[0] == "stages" and parts[2:3] == ["__main__"] and parts[1] != own:
                found.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    assert found == []


def test_each_stage_has_a_demo_and_failure_mode_checks():
    def check(stage):
        directory = ROOT / stage["directory"]
        assert (directory / "__main__.py").is_file()
        checks = "".join(p.read_text() for p in (directory / "checks").glob("test_*.py"))
        assert "@pytest.mark.failure_mode" in checks

    assert each_stage(check) == []


def test_the_files_a_lesson_asks_you_to_read_exist():
    def check(stage):
        directory = ROOT / stage["directory"]
        readme = (directory / "README.md").read_text()
        reading = readme.split("## Read the files in this order", 1)[1].split("\n## ", 1)[0]
        named = re.findall(r"^\d+\. `([^`]+)`", reading, flags=re.MULTILINE)
        assert named, "the reading list names no files"
        assert [n for n in named if not (directory / n).exists()] == []

    assert each_stage(check) == []


def test_each_lesson_says_how_long_its_reading_takes_and_lists_every_module():
    def check(stage):
        directory = ROOT / stage["directory"]
        readme = (directory / "README.md").read_text()
        reading = readme.split("## Read the files in this order", 1)[1].split("\n## ", 1)[0]
        stated = re.search(
            r"^Reading: (\d+) items \((\d+) modules of this stage\), about (\d+) minutes\.$",
            reading,
            re.M,
        )
        assert stated is not None, "the reading list does not say how long it takes"
        names = sorted(p.name for p in stage_code(directory) if p.name != "__init__.py")
        listed = set(re.findall(r"`(\w+\.py)`", reading))
        assert [name for name in names if name not in listed] == [], "modules it does not list"
        items = re.findall(r"^\d+\. ", reading, re.M)  # the numbered list's own items
        assert (int(stated.group(1)), int(stated.group(2))) == (len(items), len(names))
        # the code at 20 lines a minute, to the nearest five minutes
        assert int(stated.group(3)) == 5 * max(1, round(code_lines(directory) / 20 / 5))

    assert each_stage(check) == []


# `python -m ...` or `python scripts/...` that does not start with the course's own Python
BARE_PYTHON = re.compile(r"(?<![\w/.])python3? (?:-m |scripts/)")


def test_each_lesson_calls_python_as_the_readme_does():
    # a bare `python` is whichever the shell finds first, without the course's dependencies
    def check(stage):
        readme = (ROOT / stage["directory"] / "README.md").read_text()
        bare = [line.strip() for line in readme.splitlines() if BARE_PYTHON.search(line)]
        assert bare == [], "a bare python, not .venv/bin/python"

    assert each_stage(check) == []
    # the mirrored half: the pattern finds a bare call, and passes the course's own
    assert BARE_PYTHON.search("run `python -m stages.s01_model`")
    assert not BARE_PYTHON.search(".venv/bin/python -m stages.s01_model")


def longest_function(path: Path) -> tuple[str, int]:
    """The longest function or method in a module, decorators and docstring included."""
    lengths = [("(none)", 0)]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            lengths.append((node.name, (node.end_lineno or start) - start + 1))
    return max(lengths, key=lambda named: named[1])


@pytest.mark.failure_mode
def test_each_stage_keeps_within_the_limits_its_manifest_entry_sets():
    def check(stage):
        limits = stage.get("limits")
        if limits is None:
            return
        directory = ROOT / stage["directory"]
        for path in stage_code(directory):
            lines = len(path.read_text().splitlines())
            assert lines <= limits["module"], f"{path.name}: {lines} lines"
            name, length = longest_function(path)
            assert length <= limits["function"], f"{path.name}: {name} is {length} lines"
        assert set(limits) == {"lines", "module", "function"}, f"{stage['directory']}: {limits}"
        total = code_lines(directory)
        assert total <= limits["lines"], f"{stage['directory']}: {total} lines"

    assert each_stage(check) == []


def test_a_long_function_is_measured_with_its_decorators(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("@decorated\ndef f():\n    pass\n\n\ndef g():\n    pass\n")
    assert longest_function(module) == ("f", 3)
    (tmp_path / "empty.py").write_text("X = 1\n")
    assert longest_function(tmp_path / "empty.py") == ("(none)", 0)


def test_the_readme_quick_start_is_exactly_the_two_commands():
    readme = (ROOT / "README.md").read_text()
    quick_start = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```\n(.*?)```", quick_start, flags=re.DOTALL)
    assert blocks == ["make report\nmake check\n"]


def test_the_readme_student_path_table_is_the_one_the_checks_give():
    # Both sides come from this checkout: the README's table, and one generated now from the
    # manifest and a fresh pytest collection (scripts/course.py --write puts it there).
    readme = (ROOT / "README.md").read_text()
    assert table_in(readme) == path_table(load_course(ROOT), figures(ROOT))
    row = r"^\| (stage-\d\d) \| \[(s\d\d_\w+)\]\(([^)]+)\) \| ([^|]+) \|"
    tags = re.findall(row, table_in(readme), re.M)
    assert all((ROOT / lesson).is_file() for _, _, lesson, _ in tags)
    assert [(tag, name, title) for tag, name, _, title in tags] == [
        (f"stage-{s['number']:02d}", Path(s["directory"]).name, s["title"]) for s in STAGES
    ]
    # the first row is this file's: the course's own checks, which every tag carries
    own = re.findall(r"^\| every tag \| \[course\]\(([^)]+)\) \|", table_in(readme), re.M)
    assert own == [str(Path(__file__).resolve().relative_to(ROOT))]
    assert own[0] in MANIFEST["course"]["paths"]


def test_ci_runs_make_check():
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^make check$", ci, flags=re.MULTILINE)


def test_the_readme_bad_input_example_is_what_the_command_prints(cli, tmp_path):
    readme = (ROOT / "README.md").read_text()
    example = re.search(
        r"^\$ \.venv/bin/python -m (\S+) --script (\S+)\n(error: .+)$", readme, re.MULTILINE
    )
    assert example is not None
    module, name, printed = example.groups()
    script = tmp_path / name
    script.write_text('{"steps": [{"answer": "fine"}, {"cal": "order_status"}]}')
    result = cli(module, "--script", str(script))
    assert result.returncode == 2
    assert result.stderr.strip().replace(str(script), name) == printed


def test_each_stage_runs_as_make_report_runs_it():
    # `make report` runs every stage's package with no arguments, each in a Python of its own
    # (the `cli` fixture runs a command inside this process); each must exit 0
    def check(stage):
        module = stage["directory"].replace("/", ".")
        result = subprocess.run(
            [sys.executable, "-m", module], cwd=ROOT, capture_output=True, text=True, timeout=300
        )
        assert result.returncode == 0, result.stderr[-2000:]

    assert each_stage(check) == []


def progress(*args):
    return subprocess.run(
        [sys.executable, "scripts/progress.py", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def changed_files():
    listed = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    return listed.stdout


def test_progress_names_the_stage_and_counts_the_checks_it_ran(tmp_path):
    before = changed_files()
    checks = tmp_path / "test_three.py"  # a few quick checks: the count is what is checked
    checks.write_text("".join(f"def test_{n}():\n    pass\n\n\n" for n in range(3)))
    result = progress(str(checks))
    assert result.returncode == 0, result.stdout + result.stderr
    last = STAGES[-1]
    first_line = (
        f"stage: stage-{last['number']:02d}, {Path(last['directory']).name}: {last['title']}"
    )
    assert result.stdout.splitlines()[0] == first_line
    # the count pytest reports is the number of checks in that file, collected separately
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-o", "addopts=",
         "-p", "no:cacheprovider", str(checks)],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.count("::")  # fmt: skip
    counted = re.search(r"^checks: (\d+) passed, 0 failed, of (\d+) ", result.stdout, re.M)
    assert counted is not None, result.stdout
    assert int(counted.group(1)) == int(counted.group(2)) == collected
    assert changed_files() == before  # nothing git sees was written


@pytest.mark.failure_mode
def test_progress_shows_a_red_check_and_exits_1(tmp_path):
    red = tmp_path / "test_red.py"
    red.write_text("def test_green():\n    pass\n\n\ndef test_red():\n    assert 1 == 2\n")
    result = progress(str(red))
    assert result.returncode == 1
    assert "checks: 1 passed, 1 failed, of 2 " in result.stdout
    assert re.search(r"^  red: .*test_red$", result.stdout, re.M), result.stdout
    # a module that does not even import has no test case to fail, and is red all the same
    broken = tmp_path / "test_broken.py"
    broken.write_text("import no_such_module_here\n")
    result = progress(str(broken))
    assert result.returncode == 1
    assert "checks: 0 passed, 0 failed, of 0 " in result.stdout
    assert re.search(r"pytest exited with [1-9]\d*: run ", result.stdout), result.stdout


@pytest.mark.failure_mode
def test_progress_names_the_tag_and_every_changed_file_whole(tmp_path):
    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q", "-b", "mine")
    (tmp_path / "stages").mkdir()
    (tmp_path / "stages" / "a.py").write_text("x = 1\n")
    git("add", "-A")
    git("-c", "user.name=c", "-c", "user.email=c@c.invalid", "commit", "-q", "-m", "one")
    git("tag", "stage-01")
    git("checkout", "-q", "--detach", "stage-01")  # as `git checkout stage-01` leaves it
    assert position_line("stage-01", tmp_path) == "git: on its tag; no tracked file changed"
    (tmp_path / "stages" / "a.py").write_text("x = 2\n")  # a path git lists after " M "
    assert position_line("stage-01", tmp_path) == (
        "git: on its tag; tracked files you changed (1): stages/a.py"
    )
    # a commit of the student's on a branch of theirs, as `make next` makes one
    git("checkout", "-q", "mine")
    git("-c", "user.name=c", "-c", "user.email=c@c.invalid", "commit", "-q", "-am", "two")
    assert position_line("stage-01", tmp_path) == (
        "git: 1 commit(s) of yours after its tag, on branch mine; no tracked file changed"
    )
    assert position_line("stage-99", tmp_path).startswith("git: at stage-01-1-g")


def test_progress_runs_the_stage_s_own_checks_and_the_course_s_and_no_others():
    course = load_course(ROOT)
    last = course.stages[-1]
    paths = own_checks(course, last)
    assert paths[0] == f"{last.directory}/checks" and "scripts/checks/test_course.py" in paths
    assert all((ROOT / path).exists() for path in paths)
    earlier = [f"{stage.directory}/" for stage in course.stages[:-1]]
    assert [path for path in paths if path.startswith(tuple(earlier))] == []


def test_lint_on_a_file_laid_out_by_hand_names_make_format_which_fixes_it(tmp_path):
    # a student's check, written without ruff's layout: lint says what to run, not only what is
    # wrong; `make format` then lays it out, and lint passes on the same file
    venv = Path(sys.executable).parent.parent  # the environment these checks run in
    (tmp_path / "test_mine.py").write_text(
        "import sys\nimport os\ndef test_x():\n  assert os.sep and sys.path\n"
    )
    older = (venv / ".installed").stat().st_mtime - 60  # make must see the stamp as up to date
    for made_from in ("pyproject.toml", "honest_evals.py"):  # what the stamp is made from
        (tmp_path / made_from).touch()
        os.utime(tmp_path / made_from, (older, older))

    def make(target):
        return subprocess.run(
            ["make", "-s", "-C", str(tmp_path), "-f", str(ROOT / "Makefile"), f"VENV={venv}",
             target],
            capture_output=True, text=True, timeout=120,  # a safety net, not a measure
        )  # fmt: skip

    before = make("lint")
    assert before.returncode != 0 and "`make format` lays those files out" in before.stderr
    assert make("format").returncode == 0
    after = make("lint")
    assert after.returncode == 0, after.stdout + after.stderr
    assert (tmp_path / "test_mine.py").read_text().startswith("import os\nimport sys\n")


@pytest.mark.xdist_group("grouping")
def test_checks_marked_with_one_group_are_sent_to_one_worker(request):
    # `make test` spreads the checks over workers and keeps each xdist_group on one, so that
    # a costly fixture is made once; pytest-xdist groups by a suffix it adds to the node id,
    # which some pytest releases (9.2) no longer let it add: the groups are then ignored
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("only under `make test`, whose workers take the checks by group")
    assert request.node.nodeid.endswith("@grouping")
