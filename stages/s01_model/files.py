"""Reading the course's input files, with errors that say which file, line and value."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from stages.s01_model.errors import CourseInputError


def load_json(path: Path) -> Any:
    """Parse a JSON file; a missing file or bad JSON is a CourseInputError naming the place."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise CourseInputError(f"{path}: cannot read ({error.strerror})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise CourseInputError(
            f"{path}:{error.lineno}:{error.colno}: not valid JSON ({error.msg})"
        ) from None


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Read a JSONL file back; a line that is not a JSON object is an error naming its line."""
    records: list[dict[str, Any]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
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
