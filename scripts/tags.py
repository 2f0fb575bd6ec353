"""Moving through the course's tags: what a tag adds, a stage put back, the next tag.

    python scripts/tags.py diff          (make diff)   what this tag adds to the one before
    python scripts/tags.py reset [--yes] (make reset)  this stage's files as its tag has them
    python scripts/tags.py next          (make next)   the next tag, with the checks you wrote

They work in a clone of the built course, whose tags are stage-01 onwards; the stage is the
last one course.toml lists. `next` commits the checks you wrote for the exercises (and nothing
else) to a branch of yours, mine/stage-NN, then checks out the next tag as a new branch,
mine/stage-MM, with those checks in it, committed: the tag's `make check` proves each of them
there. Your credits live outside git (.progress/), so no checkout touches them. `reset` asks
before it puts anything back, and keeps the checks you wrote.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: make the course importable

from scripts.course import Stage, load_course  # noqa: E402
from scripts.manifest import load_manifest  # noqa: E402
from stages.s01_model.cli import run_cli  # noqa: E402
from stages.s01_model.errors import CourseInputError  # noqa: E402

# Used for the commits `next` makes only where git has no name and address configured.
IDENTITY = ["-c", "user.name=Course student", "-c", "user.email=student@course.invalid"]
HIDDEN = {"mutations/exercises.toml"}  # its diff holds the new exercises' answers
SOLUTIONS = "mutations/solutions/"  # the reference checks: read once your own are proven


def files(count: int) -> str:
    return f"{count} file{'' if count == 1 else 's'}"


def git(*args: str, root: Path = ROOT) -> str:
    """git's output in `root`; its own message, on one line, when it fails."""
    result = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    if result.returncode != 0:
        message = " ".join(result.stderr.split()) or f"exit {result.returncode}"
        raise CourseInputError(f"git {args[0]}: {message}")
    return result.stdout


def says_yes(*args: str, root: Path = ROOT) -> bool:
    """Whether git answers yes (exit 0) to a question such as `rev-parse --verify`."""
    return subprocess.run(["git", *args], cwd=root, capture_output=True).returncode == 0


def has_tag(tag: str, root: Path = ROOT) -> bool:
    return says_yes("rev-parse", "-q", "--verify", f"refs/tags/{tag}", root=root)


def neighbour(stage: Stage, step: int, root: Path = ROOT) -> str | None:
    """The tag before (step -1) or after (step 1) this stage's, of those this clone has; the
    course's stage numbers need not be consecutive."""
    numbers = sorted(int(tag[6:]) for tag in git("tag", "--list", "stage-*", root=root).split())
    side = [n for n in numbers if (n - stage.number) * step > 0]
    if not side:
        return None
    return f"stage-{(side[0] if step > 0 else side[-1]):02d}"


def here(root: Path = ROOT) -> Stage:
    """This checkout's stage; an error unless its tag is here (the built course)."""
    stage = load_course(root).stages[-1]
    if not has_tag(stage.tag, root):
        raise CourseInputError(
            f"no tag {stage.tag} in this checkout: these commands work in a clone of the built "
            "course (the README's student path)"
        )
    return stage


def written_checks(root: Path = ROOT) -> list[str]:
    """The files of the checks students write, for the stages of this checkout."""
    have = {stage.number for stage in load_course(root).stages}
    exercises = load_manifest(root / "mutations" / "exercises.toml")
    return sorted({e.check_file for e in exercises if e.kind == "write" and e.stage in have})


def changed(since: str, paths: list[str], root: Path = ROOT) -> dict[str, str]:
    """Path -> A (added), M (modified) or D (deleted): the working tree against `since`."""
    listed = git("diff", "--name-status", "--no-renames", since, "--", *paths, root=root)
    return {line.split("\t", 1)[1]: line[0] for line in listed.splitlines() if "\t" in line}


def diff(root: Path = ROOT) -> int:
    """What this tag adds to the previous one: files new and changed, and the changed ones'
    diff (new files are read whole, in the lesson's order)."""
    stage = here(root)
    lesson = f"{stage.directory}/README.md"
    before = neighbour(stage, -1, root)
    if before is None:
        listed = git("ls-tree", "-r", "--name-only", stage.tag, root=root).split()
        print(f"{stage.tag} is the first tag: all of its {len(listed)} files are new; {lesson}")
        print("says which to read, and in what order")
        return 0
    status = git("diff", "--name-status", "--no-renames", before, stage.tag, root=root)
    kinds = [(line[0], line.split("\t", 1)[1]) for line in status.splitlines() if "\t" in line]
    new = [path for kind, path in kinds if kind == "A" and not path.startswith(SOLUTIONS)]
    edited = [path for kind, path in kinds if kind == "M" and not path.startswith(SOLUTIONS)]
    references = [path for kind, path in kinds if path.startswith(SOLUTIONS)]
    print(f"{stage.tag} adds {files(len(new))} to {before}, and changes {len(edited)}.")
    print(f"\nnew (read them whole, in the order {lesson} gives):")
    print("".join(f"  {path}\n" for path in new), end="")
    if references:
        print(f"  (and {len(references)} in {SOLUTIONS}: reference checks, for after yours)")
    print("\nchanged" + (", and shown below:" if edited else ": none"))
    print("".join(f"  {path}\n" for path in edited), end="")
    hidden = [path for path in edited if path in HIDDEN]
    if hidden:
        print(f"  ({', '.join(hidden)} is left out below: it holds the new exercises' answers)")
    shown = [path for path in edited if path not in HIDDEN]
    sys.stdout.flush()
    if shown:  # through git's pager, when there is a terminal to page on
        subprocess.run(["git", "diff", before, stage.tag, "--", *shown], cwd=root, check=False)
    return 0


def reset(yes: bool, root: Path = ROOT) -> int:
    """Put this stage's files back as its tag has them, once asked; keep the checks you wrote
    and the files you added."""
    stage = here(root)
    mine = set(written_checks(root))
    found = changed(stage.tag, [stage.directory, *stage.paths], root)
    back = sorted(path for path, kind in found.items() if kind != "A" and path not in mine)
    kept = sorted(path for path in found if path in mine)
    added = sorted(path for path, kind in found.items() if kind == "A")
    untracked = git("ls-files", "--others", "--exclude-standard", "--", stage.directory, root=root)
    for label, paths in (("kept, the checks you wrote", kept),
                         ("left alone, files you added", added + untracked.split())):  # fmt: skip
        if paths:
            print(f"{label}: {', '.join(paths)}")
    if not back:
        print(f"nothing to put back: {stage.name}'s files are as {stage.tag} has them")
        return 0
    print(f"to put back as {stage.tag} has them (your changes to them are lost):")
    print("".join(f"  {path}\n" for path in back), end="")
    if not yes:
        try:
            answer = input(f"put {'it' if len(back) == 1 else 'them'} back? [y/N] ")
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            print("nothing was put back")
            return 0  # the student's choice, not a failure
    git("checkout", stage.tag, "--", *back, root=root)
    print(f"put back {files(len(back))}, as {stage.tag} has them")
    return 0


def commit(message: str, paths: list[str], root: Path = ROOT) -> None:
    """Commit `paths` alone, as whoever git says you are (else as IDENTITY)."""
    named = all(says_yes("config", key, root=root) for key in ("user.name", "user.email"))
    git("add", "--", *paths, root=root)
    git(*([] if named else IDENTITY), "commit", "-q", "-m", message, "--", *paths, root=root)


def fresh_branch(name: str, root: Path = ROOT) -> str:
    """`name`, or `name-2`, `name-3` ... when a branch of that name exists already."""
    taken = set(git("branch", "--list", "--format=%(refname:short)", root=root).split())
    number, branch = 1, name
    while branch in taken:
        number += 1
        branch = f"{name}-{number}"
    return branch


def next_tag(root: Path = ROOT) -> int:
    """Commit the checks you wrote, check out the next tag as a branch, and carry them there."""
    stage = here(root)
    after = neighbour(stage, 1, root)
    if after is None:
        print(f"{stage.tag} is the last stage of the course: there is no next tag")
        return 0
    mine = written_checks(root)
    edited = git("status", "--porcelain", "--untracked-files=no", root=root).splitlines()
    others = sorted(line[3:] for line in edited if line[3:] not in mine)
    if others:
        raise CourseInputError(
            f"make next carries the checks you wrote to {after}, and nothing else; you also "
            f"changed {', '.join(others)}: put them back (make reset, or git checkout -- FILE) "
            "or commit them yourself, then run make next again"
        )
    if edited:
        if not says_yes(
            "symbolic-ref", "-q", "HEAD", root=root
        ):  # at the tag itself: a branch of yours, from it
            git("switch", "-q", "-c", fresh_branch(f"mine/{stage.tag}", root), root=root)
        commit(f"My checks at {stage.tag}", [line[3:] for line in edited], root)
    ours = git("rev-parse", "HEAD", root=root).strip()
    carried = [path for path in changed(stage.tag, mine, root) if path in mine]
    branch = fresh_branch(f"mine/{after}", root)
    git("switch", "-q", "-c", branch, after, root=root)
    for path in carried:
        (root / path).write_bytes(
            subprocess.run(["git", "show", f"{ours}:{path}"], cwd=root, capture_output=True,
                           check=True).stdout
        )  # fmt: skip
    if carried:
        commit(f"My checks, carried from {stage.tag}", carried, root)
    arrived = load_course(root).stages[-1]
    print(f"now at {after}, on branch {branch}: {arrived.title}")
    print("".join(f"  with your check {path}\n" for path in carried), end="")
    print(f"read {arrived.directory}/README.md, then run make check")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("command", choices=["diff", "reset", "next"])
    parser.add_argument("--yes", action="store_true", help="reset: do not ask")
    args = parser.parse_args()
    if args.command == "diff":
        return diff()
    if args.command == "reset":
        return reset(args.yes)
    return next_tag()


if __name__ == "__main__":
    sys.exit(run_cli(main))  # bad input: one line, exit 2; Ctrl-C: exit 130
