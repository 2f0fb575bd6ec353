"""Checks run in temporary copies of the course, with time limits the checks themselves set.

A planted bug is never written into the working tree: each run gets a fresh copy, and pytest
runs there in a process group of its own, so that Ctrl-C (or SIGTERM) stops it whole. Results
are read from pytest's JUnit XML, never from the exit code alone.

A time limit is a safety net against a bug that makes a check hang, never a measure of speed:
it is TEN_TIMES the seconds the same checks took on the unmutated tree, measured in the same
session on the same machine, so a busy machine, which slows both alike, never reaches it.
Until that measurement is in (a planted run may start beside the unmutated one), or where
there is none, the only limit is SAFETY_NET.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: make the course importable

from scripts.course import junit_messages, junit_results  # noqa: E402
from scripts.preloaded import Forked, Server  # noqa: E402

TEN_TIMES = 10.0  # a limit is this many times the measured time of the same checks...
AT_LEAST = 60.0  # ...and never under a minute (a run of one quick check is mostly start-up)
SAFETY_NET = 1800.0  # seconds, while nothing is measured: only a hang gets this far
POLL = 1.0  # how often a waiting run looks whether its limit has become known
NOT_COPIED = shutil.ignore_patterns(
    ".git", ".venv", "mutants", "build", "reports", "traces", ".progress",
    ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis",
    # __pycache__ comes too (see copied): a copy that compiled every module afresh would
    # spend most of its time there, and Python checks the source each file was compiled from
)  # fmt: skip


class Limit:
    """The time limit of the planted runs: unknown until the unmutated run is measured."""

    def __init__(self, at_least: float = AT_LEAST) -> None:
        self._seconds: float | None = None
        self._at_least = at_least

    def measured(self, seconds: float) -> None:
        """The unmutated run took `seconds`: from now on, a run may take TEN_TIMES that."""
        self._seconds = max(self._at_least, TEN_TIMES * seconds)

    def seconds(self) -> float | None:
        return self._seconds


@dataclass(frozen=True)
class Run:
    """One pytest run in a copy: its exit code (None when a limit stopped it), what it
    printed, each check's result (passed, failed, skipped), and the failures' first lines."""

    code: int | None
    output: str
    results: dict[str, str]
    seconds: float
    limit: float  # the limit it ran under, in seconds
    messages: dict[str, str] = field(default_factory=dict)


Child = subprocess.Popen[str] | Forked


@dataclass
class Runner:
    """Runs pytest in temporary copies; remembers its children so Ctrl-C can stop them. With
    `forks`, each run is forked from a process with the checks' libraries imported
    (scripts/preloaded.py) where that process can run, else started as `python -m pytest`;
    leaving the `with` block ends that process."""

    scratch: Path
    root: Path = ROOT
    forks: bool = False
    children: set[Child] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)
    server: Server = field(init=False)

    def __post_init__(self) -> None:
        self.server = Server(self.scratch / "preloaded.sock")

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *_: object) -> None:
        self.server.close()

    def copy(self, name: str) -> Path:
        tree = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.scratch)) / "tree"
        shutil.copytree(self.root, tree, ignore=NOT_COPIED, symlinks=True, copy_function=copied)
        return tree

    def pytest(
        self, tree: Path, args: list[str], limit: Limit | None = None, plain: bool = True
    ) -> Run:
        """Run pytest in `tree` under `limit` (SAFETY_NET alone when None or not yet known).

        `plain`: plain asserts. A failing check fails the same, without pytest re-writing
        (and, where no bytecode is cached, re-compiling) every test module in every copy;
        without it, a failure's message says what was compared."""
        junit = tree.parent / "junit.xml"
        env = {
            **os.environ,
            "HYPOTHESIS_PROFILE": "mutation",
            "HYPOTHESIS_STORAGE_DIRECTORY": str(tree.parent / "hypothesis"),
        }
        options = [*args, "-q", "-p", "no:cacheprovider", *(["--assert=plain"] if plain else [])]
        # the checks' own temporary files go into the scratch folder too
        options += [f"--junitxml={junit}", f"--basetemp={tree.parent / 'tmp'}"]
        forked = self.server.start(tree, options, env) if self.forks else None
        child = forked or subprocess.Popen(
            [sys.executable, "-m", "pytest", *options],
            cwd=tree,  # the copy is the first entry on sys.path, not the working tree
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # its own process group, so it can be stopped whole
        )
        with self.lock:
            self.children.add(child)
            if self.stopping.is_set():
                _kill(child)  # started just as the run was interrupted
        started = time.monotonic()
        try:
            code, output, allowed = wait(child, started, limit)
        finally:
            with self.lock:
                self.children.discard(child)
        seconds = time.monotonic() - started
        return Run(code, output, junit_results(junit), seconds, allowed, junit_messages(junit))

    def stop_all(self) -> None:
        """Start nothing more, and kill every running check with its whole process group."""
        with self.lock:
            self.stopping.set()
            for child in list(self.children):
                _kill(child)


def copied(source: str, target: str) -> str:
    """A file of the copy. Compiled bytecode is linked, not copied (a copy of this tree then takes
    a quarter of the time): Python and pytest replace such a file whole, never write into it, so
    a run in the copy cannot change the tree's. Every other file is copied, the one a bug is
    planted in among them."""
    if f"{os.sep}__pycache__{os.sep}" in source:
        with suppress(OSError):  # another file system, say: copied after all
            os.link(source, target)
            return target
    return shutil.copy2(source, target)


def wait(child: Child, started: float, limit: Limit | None) -> tuple[int | None, str, float]:
    """Wait for `child` until it ends or its limit passes (then kill it: code None)."""
    while True:
        known = limit.seconds() if limit is not None else None
        allowed = SAFETY_NET if known is None else min(known, SAFETY_NET)
        left = started + allowed - time.monotonic()
        try:
            output, _ = child.communicate(timeout=max(0.0, min(left, POLL)))
            return child.returncode, output, allowed
        except subprocess.TimeoutExpired:
            if time.monotonic() >= started + allowed:
                _kill(child)
                return None, child.communicate()[0], allowed


def _kill(child: Child) -> None:
    with suppress(ProcessLookupError):  # it may have finished already
        os.killpg(child.pid, signal.SIGKILL)


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM is handled like Ctrl-C


@contextmanager
def interruptible(runner: Runner, pool: ThreadPoolExecutor) -> Iterator[None]:
    """On Ctrl-C or SIGTERM: stop every check, cancel the queued ones, wait for the rest.
    Ctrl-C counts even where the runner was started with it ignored (as `&` does in a script)."""
    previous = signal.signal(signal.SIGTERM, _terminate)
    previous_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    except KeyboardInterrupt:
        runner.stop_all()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
        signal.signal(signal.SIGINT, previous_int)
