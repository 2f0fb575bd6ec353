"""Reading the course's input files, with errors that say which file, line and value, and
checking where a command will write before it does any work."""

from __future__ import annotations

import json
import os
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


def folder(path: Path | None, option: str) -> Path | None:
    """`path` when it is a folder or can become one (None stays None): checked before any work."""
    if path is None:
        return None
    above = next(place for place in (path, *path.resolve().parents) if place.exists())
    if not above.is_dir():
        where = "" if above == path else f" {above}"
        raise CourseInputError(f"{option} {path}:{where} is a file; name a folder to write them in")
    return path


def writable(path: Path, option: str) -> Path:
    """`path`, once it is known that a file can be written there (its folder made if missing):
    checked before any work. Anything in the way is a CourseInputError naming the option."""
    above = next(folder for folder in path.resolve().parents if folder.exists())
    if not above.is_dir():
        raise CourseInputError(f"{option} {path}: {above} is a file, not a folder")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise CourseInputError(
            f"{option} {path}: cannot make its folder ({error.strerror})"
        ) from None
    if path.is_dir():
        raise CourseInputError(f"{option} {path}: is a folder, not a file")
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise CourseInputError(f"{option} {path}: no permission to write here")
    return path


def write_text(path: Path, text: str) -> None:
    """Write a UTF-8 file (and its folder); a place that cannot be written is a CourseInputError."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")  # pragma: no mutate (the encoding's spelling)
    except OSError as error:
        raise CourseInputError(f"{path}: cannot write ({error.strerror})") from None
