"""Print each stage's size and reading time; --write puts both in the stages' READMEs.

Every lesson states its size on a line `Size: N lines of Python, checks not counted.`, and
opens its reading list with `Reading: I items (K modules of this stage), about M minutes.`,
where I counts the list's numbered items, K the stage's modules (its `__init__.py` aside) and
M is their lines at LINES_A_MINUTE, to the nearest five minutes. Only the code is timed: a
lesson's text differs from tag to tag (a later stage's sentences are cut from it), its code
does not. scripts/checks/test_course.py counts both again from the tree.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZE_LINE = re.compile(r"^Size: \d+ lines of Python, checks not counted\.$", re.MULTILINE)
READING_LINE = re.compile(
    r"^Reading: \d+ items \(\d+ modules of this stage\), about \d+ minutes\.$", re.MULTILINE
)
HEADING = "## Read the files in this order\n"
LINES_A_MINUTE = 20  # read closely enough to predict what a change would break


def modules(directory: Path) -> list[Path]:
    """The stage's Python files, checks not counted."""
    return [p for p in directory.rglob("*.py") if "checks" not in p.relative_to(directory).parts]


def size(directory: Path) -> int:
    return sum(len(p.read_text().splitlines()) for p in modules(directory))


def reading(directory: Path) -> tuple[int, int]:
    """How many modules a student reads (`__init__.py` aside), and in about how many minutes."""
    minutes = 5 * max(1, round(size(directory) / LINES_A_MINUTE / 5))
    return sum(p.name != "__init__.py" for p in modules(directory)), minutes


def write(directory: Path) -> None:
    """Put the stage's size and reading time in its README; the reading line opens the list."""
    readme = directory / "README.md"
    count, minutes = reading(directory)
    text = SIZE_LINE.sub(
        f"Size: {size(directory)} lines of Python, checks not counted.", readme.read_text(), 1
    )
    listing = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    items = len(re.findall(r"^\d+\. ", listing, re.MULTILINE))
    line = f"Reading: {items} items ({count} modules of this stage), about {minutes} minutes."
    if READING_LINE.search(text):
        text = READING_LINE.sub(line, text, 1)
    else:
        text = text.replace(HEADING, f"{HEADING}\n{line}\n", 1)
    readme.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="update each README's two lines")
    args = parser.parse_args()
    for directory in sorted(ROOT.glob("stages/s[0-9][0-9]_*")):
        if args.write:
            write(directory)
        count, minutes = reading(directory)
        print(f"{directory.name}: {size(directory)} lines, {count} modules, about {minutes} min")


if __name__ == "__main__":
    main()
