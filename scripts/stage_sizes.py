"""Print each stage's size in lines of Python (checks not counted); --write puts it in the READMEs.

Every lesson states its size on a line `Size: N lines of Python, checks not counted.`, and
scripts/checks/test_course.py counts the code again to hold that line to it.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZE_LINE = re.compile(r"^Size: \d+ lines of Python, checks not counted\.$", re.MULTILINE)


def size(directory: Path) -> int:
    files = [p for p in directory.rglob("*.py") if "checks" not in p.relative_to(directory).parts]
    return sum(len(p.read_text().splitlines()) for p in files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="update each README's Size line")
    args = parser.parse_args()
    for directory in sorted(ROOT.glob("stages/s[0-9][0-9]_*")):
        lines = size(directory)
        print(f"{directory.name}: {lines} lines")
        readme = directory / "README.md"
        if args.write and readme.exists():
            line = f"Size: {lines} lines of Python, checks not counted."
            readme.write_text(SIZE_LINE.sub(line, readme.read_text(), count=1))


if __name__ == "__main__":
    main()
