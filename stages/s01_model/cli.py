"""The small command-line frame every stage's demo shares."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import writable

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
TRACES = ROOT / "traces"


def demo_parser(description: str, script: Path, trace: Path) -> argparse.ArgumentParser:
    """Arguments every demo takes: the conversation script to play and where to write the trace."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--script", type=Path, default=script, help=f"default: {short(script)}")
    parser.add_argument("--trace", type=trace_file, default=trace, help=f"default: {short(trace)}")
    return parser


def trace_file(text: str) -> Path:
    """A --trace path a file can be written at, checked before the demo runs (a folder, or a
    file in the way of its folder, is one line naming it; argparse gives the default as is)."""
    return writable(Path(text), "--trace")


def run_cli(main: Callable[[], int]) -> int:
    """Run a command; bad input becomes one line on stderr and exit code 2, and Ctrl-C one
    line and 130 (as a shell reports it), not a traceback. A reader that stops reading (as
    `| head` does) ends the command quietly, as it ends other programs."""
    try:
        return main()
    except CourseInputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 141  # 128 + SIGPIPE, what a shell reports for it


def short(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
