"""The report command's parts: its options, its sub-command parsing, the files it wrote.

This stage's command uses them, and so do the later stages whose reports extend this one;
each takes values (a path, a flag, the report's JSON and text), never parsed arguments.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from stages.s01_model.cli import short, whole
from stages.s09_calibration.calibrate import REPEATS

Commands = dict[str, argparse.ArgumentParser]


at_least_one = whole(1, "each text must be scored at least once")  # 0 scorings measure nothing


def add_report(commands: Any, name: str, specs: str, out: Path) -> argparse.ArgumentParser:
    """The report command and its options, under `name`."""
    report: argparse.ArgumentParser = commands.add_parser(name, help="the calibration report")
    report.add_argument("--judge", default="biased", help=specs)
    report.add_argument("--json", action="store_true", help="print one JSON object")
    report.add_argument("--repeats", type=at_least_one, default=REPEATS, help="scorings per text")
    report.add_argument("--out", type=Path, default=out, help="where to write it")
    report.add_argument("--plots", type=Path, help="write PNG plots to this folder")
    return report


def parse(top: argparse.ArgumentParser, commands: Commands, argv: list[str]) -> argparse.Namespace:
    """The arguments, read by the top-level parser; no command means the first. A mistyped
    option is reported by the command it was given to, with that command's usage."""
    args, unknown = top.parse_known_args(argv or [next(iter(commands))])
    if unknown:
        commands[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    return args


def written(paths: list[Path], what: str) -> None:
    for path in paths:
        print(f"{what} written to {short(path)}", file=sys.stderr)
