"""The report command's parts: its options, what it prints, and the report file it writes.
Later commands that print and write a report use them too, with values, never parsed arguments.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from stages.s01_model.cli import Parser
from stages.s01_model.files import dumps, write_text
from stages.s08_eval.cases import CASES_FILE


def parser(prog: str, specs: str, out: Path) -> argparse.ArgumentParser:
    """The command's options; `specs` is the help text of --judge."""
    found = Parser(prog=prog, description="Evaluate the agent; test the judge.")
    found.add_argument("--judge", default="biased", help=specs)
    found.add_argument(
        "--control", default="steady", help="the judge the detectors must find clean"
    )
    found.add_argument("--json", action="store_true", help="print the report as one JSON object")
    found.add_argument("--out", type=Path, default=out, help="where to write the report")
    found.add_argument("--cases", type=Path, default=CASES_FILE, help="the case file")
    return found


def emit(report: dict[str, Any], text: str, as_json: bool, out: Path) -> None:
    """Print the report (its JSON, or its text) and write its JSON to `out`, keys sorted."""
    print(dumps(report, sort_keys=True) if as_json else text)
    written = dumps(report, indent=2, sort_keys=True)  # pragma: no mutate (layout only)
    write_text(out, written + "\n")


def status(not_successful: list[str]) -> int:
    """1, with the first reason on stderr and how many more the report lists, when the run is
    not successful; else 0."""
    if not not_successful:
        return 0
    first, *more = not_successful
    also = f" (and {len(more)} more in the report)" if more else ""
    print(f"error: run is not successful: {first}{also}", file=sys.stderr)
    return 1
