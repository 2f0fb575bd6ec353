"""Build the course as students get it: a git repository with one commit and tag per stage.

    python scripts/build_course.py [--out DIR] [--from REV]      (make course)

The tree at tag stage-NN holds stages 1..NN, the paths course.toml says they bring, and the
course's own files, each in the form that works at that stage:

1) Marked blocks. A block between the lines `# >>> stage K` and `# <<<` (in Markdown,
   `<!-- >>> stage K -->` and `<!-- <<< -->`, on their own lines or inside one line) is kept,
   without its markers, from tag stage-K on; before that it is left out. `>>> main` marks
   what only main keeps (the tools that build and check the tags). A Python file with marks
   is then laid out again by the pinned ruff, so that it passes `make check` at every tag.
2) Manifests. course.toml keeps the stages up to NN; the exercise manifest keeps their
   exercises; README.md's student path table keeps the rows of tags up to NN.
3) Traces. A tag must not name a later stage: not its number, its directory, a path it
   brings, or a dependency only it installs. The build fails, naming each trace, if one does.

Files are read from a git revision of this repository (HEAD by default), never from the
working tree, and every commit has the same author and date: building twice from the same
revision gives the same tree and commit hashes.
"""

from __future__ import annotations

import argparse
import ast
import functools
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: make the course importable

from scripts.course import MANIFEST, ROW, Course, Stage, course_from, table_in, with_table  # noqa: E402
from scripts.manifest import function  # noqa: E402
from stages.s01_model.errors import CourseInputError  # noqa: E402
from stages.s01_model.files import parse_toml  # noqa: E402

DEFAULT_OUT = ROOT / "build" / "course"
# The pinned ruff: its program beside this Python when there is one (a virtual environment), so
# that each of the many small files a build tidies costs no Python start-up; else through Python.
_RUFF_BIN = Path(sys.executable).with_name("ruff")
RUFF = [str(_RUFF_BIN)] if _RUFF_BIN.is_file() else [sys.executable, "-m", "ruff"]
AUTHOR = "Honest Evals course <course@honest-evals.invalid> 946684800 +0000"  # 2000-01-01
BUILT_MARK = "honest-evals.built"  # a git config key: this folder is a build, safe to replace
WHEN = r"(?P<when>stage (?P<stage>\d+)|main)"
BLOCKS = {
    "hash": [
        re.compile(rf"^[ \t]*# >>> {WHEN}[ \t]*\n(?P<body>.*?)^[ \t]*# <<<[ \t]*\n", re.M | re.S)
    ],
    "html": [
        re.compile(rf"^<!-- >>> {WHEN} -->\n(?P<body>.*?)^<!-- <<< -->\n", re.M | re.S),
        re.compile(rf"<!-- >>> {WHEN} -->(?P<body>.*?)<!-- <<< -->", re.S),
    ],
}
LEFTOVER = re.compile(r"(?:#|<!--) (?:>>>|<<<)")
# "stage 4", "stages 2 and 5", "stages 1 to 7" (or with a dash), "stage-04", and stage
# directories such as s04_x
NUMBERS = re.compile(
    r"\b[Ss]tages?[ -](?:0?\d+(?:[^\S\n]*(?:\u2013|-|,|and|or|to|\u2026)[^\S\n]*)?)+|\bs\d\d_[a-z]"
)


@dataclass(frozen=True)
class Blob:
    mode: str  # git's file mode: 100644, or 100755 for an executable such as .ci/run
    data: bytes


def unmark(path: str, text: str, tag: int, main: bool = False) -> str:
    """Keep the blocks of stages up to `tag` (markers removed); drop later ones, and main's
    unless `main` (a reference check, kept whole to be shown once the student's is proven)."""

    def keep(match: re.Match[str]) -> str:
        body = match.group("body")
        if LEFTOVER.search(body):
            raise CourseInputError(f"{path}: a marked block inside another: {match.group(0)!r}")
        stage = match.group("stage")
        wanted = int(stage) <= tag if stage is not None else main
        return body if wanted else ""

    marked = text
    for pattern in BLOCKS["html" if path.endswith(".md") else "hash"]:
        text = pattern.sub(keep, text)
    if found := LEFTOVER.search(text):
        line = text.count("\n", 0, found.start()) + 1
        raise CourseInputError(f"{path}:{line}: a block marker without its other half")
    if text == marked:
        return text
    if path.endswith(".py"):
        return tidy_python(path, text)
    # Where a block went, blank lines may pile up: keep one at most.
    return re.sub("\n\n\n+", "\n\n", text).rstrip("\n") + "\n"


@functools.cache  # most files are cut the same way at many tags
def tidy_python(path: str, text: str, rules: str = "I") -> str:
    """Python with its blocks cut, as the pinned ruff sorts its imports and lays it out: where
    a block was, the blank lines ruff asks for around a marker comment are out of place. With
    `rules` "I,F401", an import left unused goes too."""
    for command in (["check", "--select", rules, "--fix", "--quiet"], ["format", "--quiet"]):
        result = subprocess.run(
            [*RUFF, *command, "--stdin-filename", path, "-"],
            cwd=ROOT, input=text, capture_output=True, text=True, check=False,
        )  # fmt: skip
        if result.returncode != 0:
            raise CourseInputError(f"{path}: ruff cannot tidy it once cut: {result.stderr.strip()}")
        text = result.stdout
    return text


def keep_entries(path: str, text: str, header: str, key: str, tag: int) -> str:
    """Keep the `[[header]]` entries of a TOML file whose `key` is at most `tag`."""
    head, *entries = re.split(rf"^(?=\[\[{re.escape(header)}\]\]$)", text, flags=re.M)
    kept = []
    for entry in entries:
        value = parse_toml(entry, f"{path}: a [[{header}]] entry")[header][0].get(key)
        if not isinstance(value, int):
            raise CourseInputError(f"{path}: a [[{header}]] entry has no whole-number {key}")
        if value <= tag:
            kept.append(entry)
    return head + "".join(kept).rstrip("\n") + "\n"


def keep_rows(readme: str, tag: int) -> str:
    """README.md with the student path table cut to the tags up to `tag`."""
    table = ROW.sub(
        lambda row: row.group(0) if int(row.group(1)) <= tag else "\0", table_in(readme)
    )
    return with_table(readme, table.replace("\0\n", ""))


SOLUTIONS = "mutations/solutions"
SOLUTIONS_README = """# Reference checks

The course's own check for each *write the check* exercise up to this stage, one file each,
named as the file you write yours in. `make exercise ID=...` shows one beside yours once
yours is proven: write yours first, then compare.
"""


def reference(path: str, text: str, name: str, tag: int) -> str:
    """A write exercise's check file as its reference: main's blocks kept, the stub the tag
    gives (`return`, then pytest.skip) cut from the end of the check, and a docstring that
    says what the file is."""
    text = unmark(path, text, tag, main=True)
    module, check = ast.parse(text), function(text, name)
    if check is None:
        raise CourseInputError(f"{path}: no function {name}")
    *_, done, stub = check.body
    if not isinstance(done, ast.Return) or not isinstance(stub, ast.Expr):
        raise CourseInputError(f"{path}: {name} does not end with `return`, then its stub")
    lines = text.splitlines(keepends=True)
    del lines[done.lineno - 1 : stub.end_lineno]
    text = "".join(lines)
    docstring = ast.get_docstring(module, clean=False) or ""
    about = docstring.split("\n\n", 1)[0]
    text = text.replace(
        docstring, f"{about}\n\nThe course's reference check for this exercise.\n", 1
    )
    return tidy_python(path, text, "I,F401")


def solutions(files: dict[str, Blob], tag: int) -> dict[str, Blob]:
    """The reference checks of the write exercises up to `tag`, for the tag's SOLUTIONS."""
    manifest = "mutations/exercises.toml"
    found = {}
    for entry in parse_toml(files[manifest].data.decode("utf-8"), manifest).get("exercise", []):
        if entry.get("kind") == "write" and entry["stage"] <= tag:
            path, name = entry["check"].split("::", 1)
            text = reference(path, files[path].data.decode("utf-8"), name, tag)
            found[f"{SOLUTIONS}/{Path(path).name}"] = Blob("100644", text.encode("utf-8"))
    if found:
        found[f"{SOLUTIONS}/README.md"] = Blob("100644", SOLUTIONS_README.encode("utf-8"))
    return found


REWRITES: dict[str, Callable[[str, str, int], str]] = {
    "course.toml": lambda path, text, tag: keep_entries(path, text, "stage", "number", tag),
    "mutations/exercises.toml": lambda path, text, tag: keep_entries(
        path, text, "exercise", "stage", tag
    ),
    "README.md": lambda path, text, tag: keep_rows(text, tag),
}


def tree_at(course: Course, files: dict[str, Blob], stage: Stage) -> dict[str, Blob]:
    """The files of tag `stage`, each rewritten into the form it has at that tag."""
    tree = {}
    for path, blob in files.items():
        owner = course.owner(path)
        if owner is None or owner > stage.number:
            continue
        try:
            text = blob.data.decode("utf-8")
        except UnicodeDecodeError:  # not text: nothing to mark, nothing to cut
            tree[path] = blob
            continue
        text = unmark(path, text, stage.number)
        if rewrite := REWRITES.get(path):
            text = rewrite(path, text, stage.number)
        tree[path] = Blob(blob.mode, text.encode("utf-8"))
    return tree | solutions(files, stage.number)


def dependency_names(pyproject: bytes) -> set[str]:
    """The distribution names a pyproject.toml installs, extras included, lower-cased."""
    project = parse_toml(pyproject.decode("utf-8"), "pyproject.toml")["project"]
    specs = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        specs += extra
    return {re.match(r"[A-Za-z0-9_.-]+", spec).group().lower() for spec in specs}  # type: ignore[union-attr]


def traces(course: Course, files: dict[str, Blob], tree: dict[str, Blob], tag: int) -> list[str]:
    """Every place in `tree` (tag `tag`) that names a later stage, as 'path:line: what'.

    Named means: its number ("stage 4", "stages 1-7", "stage-04"), its directory (s04_x), a
    path it brings, that path's file name when the tag has no file of that name, the module
    a Python file of it is imported as, or a dependency only a later tag installs."""
    later: dict[str, str] = {}  # a word only a later stage brings (lower case) -> that stage
    owners = {path: course.owner(path) for path in files}
    names_here = {Path(mine).name for mine in tree}
    for stage in (stage for stage in course.stages if stage.number > tag):
        later[stage.name] = stage.tag
        for path in (path for path in files if owners[path] == stage.number):
            later.setdefault(path.lower(), stage.tag)
            if path.endswith(".py"):  # and the module it is imported as
                later.setdefault(path[: -len(".py")].replace("/", ".").lower(), stage.tag)
            if Path(path).name not in names_here:
                later.setdefault(Path(path).name.lower(), stage.tag)
    installed_here = dependency_names(tree["pyproject.toml"].data)
    for name in dependency_names(files["pyproject.toml"].data) - installed_here:
        later[name] = "a dependency of a later stage"
    last = max(stage.number for stage in course.stages)  # s10_x in a check's fixture is no stage
    found = []
    for path, blob in sorted(tree.items()):
        text = blob.data.decode("utf-8", "replace")  # searched whole; neither pattern spans lines
        for match in NUMBERS.finditer(text):
            cited = [int(n) for n in re.findall(r"\d+", match.group(0))]
            if any(tag < n <= last for n in cited):
                found.append(f"{path}:{line_of(text, match)}: {match.group(0).strip()!r}")
        for match, word in named(text, later):
            found.append(f"{path}:{line_of(text, match)}: {word!r} ({later[word.lower()]})")
    return found


RUN = re.compile(r"(?<![\w/.-])[\w/.-]+")  # a word, path or module name, and where it starts


def named(text: str, words: dict[str, str]) -> Iterator[tuple[re.Match[str], str]]:
    """Each run of `text` that begins with one of `words` (lower case), the longest that ends
    before a '/', a '.' or the run's end: s09_x in "s09_x/report.py", never in "s09_xy"."""
    for match in RUN.finditer(text):
        run = match.group(0)
        ends = [i for i, char in enumerate(run) if char in "/."] + [len(run)]
        word = next((run[:end] for end in reversed(ends) if run[:end].lower() in words), None)
        if word:
            yield match, word


def line_of(text: str, match: re.Match[str]) -> int:
    return text.count("\n", 0, match.start()) + 1


def read_revision(revision: str) -> dict[str, Blob]:
    """Every file of `revision` in this repository, with its git mode."""
    listing = git("ls-tree", "-r", "-z", revision, cwd=ROOT).split(b"\0")
    entries = [entry.split(b"\t", 1) for entry in listing if entry]
    heads = [head.split() for head, _ in entries]
    if any(kind != b"blob" for _, kind, _ in heads):
        raise CourseInputError(f"{revision}: holds something other than files (a submodule?)")
    batch = git("cat-file", "--batch", cwd=ROOT, input=b"".join(sha + b"\n" for _, _, sha in heads))
    files, offset = {}, 0
    for (mode, _, _), (_, name) in zip(heads, entries, strict=True):
        header_end = batch.index(b"\n", offset)
        size = int(batch[offset:header_end].split()[2])
        data = batch[header_end + 1 : header_end + 1 + size]
        offset = header_end + 1 + size + 1
        files[name.decode("utf-8")] = Blob(mode.decode(), data)
    return files


def read_worktree() -> dict[str, Blob]:
    """The files git would commit from the working tree now (tracked, or new and not ignored)."""
    listing = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT)
    files = {}
    for name in sorted({name.decode("utf-8") for name in listing.split(b"\0") if name}):
        path = ROOT / name
        if path.is_file():  # a tracked file deleted in the working tree is left out
            mode = "100755" if path.stat().st_mode & 0o111 else "100644"
            files[name] = Blob(mode, path.read_bytes())
    return files


def git(*args: str, cwd: Path, input: bytes | None = None) -> bytes:
    result = subprocess.run(["git", *args], cwd=cwd, input=input, capture_output=True, check=False)
    if result.returncode != 0:
        raise CourseInputError(f"git {' '.join(args)}: {result.stderr.decode().strip()}")
    return result.stdout


def trees(files: dict[str, Blob]) -> list[tuple[Stage, dict[str, Blob]]]:
    """Each stage with its tag's tree; an error if a file has no owner or a tag names a later
    stage."""
    if MANIFEST not in files:
        raise CourseInputError(f"{MANIFEST}: not in the files to build from")
    course = course_from(parse_toml(files[MANIFEST].data.decode("utf-8"), MANIFEST))
    orphans = [p for p in files if course.owner(p) is None and p not in course.maintainers]
    if orphans:
        raise CourseInputError(f"{MANIFEST}: no stage brings {', '.join(sorted(orphans))}")
    built = [(stage, tree_at(course, files, stage)) for stage in course.stages]
    found = [trace for stage, tree in built for trace in traces(course, files, tree, stage.number)]
    if found:
        raise CourseInputError(f"later stages are named too early: {'; '.join(found)}")
    return built


def fast_import(built: list[tuple[Stage, dict[str, Blob]]]) -> bytes:
    """A git fast-import stream: one commit per stage on main, each tagged stage-NN."""
    stream = bytearray()
    for mark, (stage, tree) in enumerate(built, start=1):
        message = f"{stage.tag}: {stage.title}\n".encode()
        stream += f"commit refs/heads/main\nmark :{mark}\n".encode()
        stream += f"author {AUTHOR}\ncommitter {AUTHOR}\n".encode()
        stream += b"data %d\n%s" % (len(message), message)
        stream += f"from :{mark - 1}\n".encode() if mark > 1 else b""
        stream += b"deleteall\n"
        for path, blob in sorted(tree.items()):
            if path.startswith('"') or "\n" in path:
                raise CourseInputError(f"{path!r}: a path git's import stream would misread")
            stream += f"M {blob.mode} inline {path}\n".encode()
            stream += b"data %d\n%s\n" % (len(blob.data), blob.data)
        stream += f"\nreset refs/tags/{stage.tag}\nfrom :{mark}\n\n".encode()
    return bytes(stream)


def build(out: Path, files: dict[str, Blob]) -> list[tuple[str, str, int]]:
    """Build the repository in `out`; return (tag, tree hash, number of files) per tag."""
    if out.exists() and any(out.iterdir()):
        previous = subprocess.run(
            ["git", "config", "--get", BUILT_MARK], cwd=out, capture_output=True, text=True
        )
        if not (out / ".git").is_dir() or previous.stdout.strip() != "true":
            raise CourseInputError(
                f"{out}: exists and is not a course built here; not replacing it"
            )
    built = trees(files)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    git("init", "-q", "-b", "main", cwd=out)
    git("config", BUILT_MARK, "true", cwd=out)
    git("fast-import", "--quiet", cwd=out, input=fast_import(built))
    git("checkout", "-q", "-f", "main", cwd=out)
    return [
        (stage.tag, git("rev-parse", f"{stage.tag}^{{tree}}", cwd=out).decode().strip(), len(tree))
        for stage, tree in built
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to build it")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--from", dest="revision", default="HEAD", help="the revision to build")
    source.add_argument(
        "--worktree", action="store_true", help="build from the working tree, to preview edits"
    )
    args = parser.parse_args()
    try:
        files = read_worktree() if args.worktree else read_revision(args.revision)
        for tag, tree, count in build(args.out.resolve(), files):
            print(f"{tag}  tree {tree}  {count} files")
    except CourseInputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"built {args.out}: git clone it, then git checkout stage-01")
    return 0


if __name__ == "__main__":
    sys.exit(main())
