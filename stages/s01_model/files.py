"""Reading the course's input files, with errors that say which file, line and value."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from stages.s01_model.errors import CourseInputError

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, from PyPI
    import tomli as tomllib


def read_text(path: Path) -> str:
    """A UTF-8 file's text, with or without the byte-order mark some editors write first; a
    missing file, or a byte that is not UTF-8, is a CourseInputError naming the place."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except OSError as error:
        raise CourseInputError(f"{path}: cannot read ({error.strerror})") from None
    except UnicodeDecodeError as error:
        raise CourseInputError(f"{path}: byte {error.start} is not UTF-8") from None


def load_json(path: Path) -> Any:
    """Parse a JSON file; a missing file or bad JSON is a CourseInputError naming the place."""
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise CourseInputError(
            f"{path}:{error.lineno}:{error.colno}: not valid JSON ({error.msg})"
        ) from None


def load_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; a missing file or bad TOML is a CourseInputError naming the place."""
    return parse_toml(read_text(path), str(path))


def parse_toml(text: str, where: str) -> dict[str, Any]:
    """Parse TOML text; bad TOML is a CourseInputError naming `where` it came from."""
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise CourseInputError(f"{where}: not valid TOML ({error})") from None
    return data


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Read a JSONL file back; a line that is not a JSON object is an error naming its line."""
    records: list[dict[str, Any]] = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise CourseInputError(f"{path}:{number}: not JSON ({error.msg})") from None
        if not isinstance(record, dict):
            raise CourseInputError(f"{path}:{number}: expected a JSON object, got {line!r}")
        records.append(record)
    return records
