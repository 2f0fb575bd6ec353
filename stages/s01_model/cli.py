"""The small command-line frame every stage's demo shares."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import writable

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
TRACES = ROOT / "traces"


OFF = (None, False, argparse.SUPPRESS)  # an option's default that its help has nothing to say of


class Parser(argparse.ArgumentParser):
    """The parser of every command here (its sub-commands' too): an option's help gives the
    value it takes when it is not given, unless the help says it already. A path is shown from
    the course's folder; an option that is off or empty unless given says nothing."""

    def add_argument(self, *names: Any, **options: Any) -> argparse.Action:
        said, default = options.get("help"), options.get("default")
        if said and not any(default is off for off in OFF) and "default" not in said:
            shown = short(default) if isinstance(default, Path) else str(default)
            options["help"] = f"{said} (default: {shown.replace('%', '%%')})"
        return super().add_argument(*names, **options)


def demo_parser(description: str, script: Path, trace: Path) -> argparse.ArgumentParser:
    """Arguments every demo takes: the conversation script to play and where to write the trace."""
    parser = Parser(description=description)
    parser.add_argument("--script", type=Path, default=script, help=f"default: {short(script)}")
    parser.add_argument("--trace", type=trace_file, default=trace, help=f"default: {short(trace)}")
    return parser


def trace_file(text: str) -> Path:
    """A --trace path a file can be written at, checked before the demo runs (a folder, or a
    file in the way of its folder, is one line naming it; argparse gives the default as is)."""
    return writable(Path(text), "--trace")


def whole(least: int, means: str) -> Callable[[str], int]:
    """An argparse type: a whole number, `least` or more; `means` says why a smaller one is
    refused ("each text must be scored at least once")."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"{value}: {means}")
        return value

    return parse


class Terminated(BaseException):
    """SIGTERM (`kill`, a CI job's time limit), raised where the command is, so that what it
    cleans up on the way out (temporary files) is cleaned up, as on Ctrl-C."""


def terminated(signum: int, frame: object) -> None:
    raise Terminated


def run_cli(main: Callable[[], int]) -> int:
    """Run a command; bad input becomes one line on stderr and exit code 2, Ctrl-C one line
    and 130, SIGTERM one line and 143 (as a shell reports them), not a traceback. A reader
    that stops reading (as `| head` does) ends the command quietly, as it ends other programs."""
    in_charge = threading.current_thread() is threading.main_thread()  # where signals land
    before = signal.signal(signal.SIGTERM, terminated) if in_charge else None
    try:
        return main()
    except CourseInputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print("error: terminated", file=sys.stderr)
        return 143
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 141  # 128 + SIGPIPE, what a shell reports for it
    finally:
        if in_charge:
            signal.signal(signal.SIGTERM, before)


def short(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
