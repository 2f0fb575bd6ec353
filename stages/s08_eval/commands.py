"""The report command's parts: its options, and the files it checks and writes.

This stage's command uses them, and so do the later commands that print and write a report;
each takes values (a path, a flag, the report), never parsed arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from stages.s01_model.errors import CourseInputError
from stages.s08_eval.cases import CASES_FILE
from stages.s08_eval.report import first_reason


def parser(prog: str, specs: str, out: Path) -> argparse.ArgumentParser:
    """The command's options; `specs` is the help text of --judge."""
    found = argparse.ArgumentParser(prog=prog, description="Evaluate the agent; test the judge.")
    found.add_argument("--judge", default="biased", help=specs)
    found.add_argument(
        "--control", default="steady", help="the judge the detectors must find clean (steady)"
    )
    found.add_argument("--json", action="store_true", help="print the report as one JSON object")
    found.add_argument("--out", type=Path, default=out, help="where to write the report")
    found.add_argument("--cases", type=Path, default=CASES_FILE, help="the case file")
    return found


def emit(report: dict[str, Any], text: str, as_json: bool, out: Path) -> None:
    """Print the report (its JSON, or its text) and write its JSON to `out`."""
    print(json.dumps(report, sort_keys=True) if as_json else text)
    write(report, out)


def status(not_successful: list[str]) -> int:
    """1, with the first reason on stderr, when the run is not successful; else 0."""
    if not not_successful:
        return 0
    print(f"error: run is not successful: {first_reason(not_successful)}", file=sys.stderr)
    return 1


def folder(path: Path | None, option: str) -> Path | None:
    """`path` when it is a folder or not there yet (None stays None): checked before any work."""
    if path is not None and path.exists() and not path.is_dir():
        raise CourseInputError(f"{option} {path}: is a file; name a folder for the plots")
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


def write(report: dict[str, Any], path: Path) -> None:
    """The report as JSON, keys sorted; the checks read the file back."""
    text = json.dumps(report, indent=2, sort_keys=True)  # pragma: no mutate (layout only)
    write_text(path, text + "\n")
