"""pytest runs forked from one Python process that has the checks' libraries imported already.

Starting Python and importing pytest, hypothesis and the libraries the stages add costs up to a
second or more of CPU, and the exercise runners start pytest once for every planted bug: for a
quick check, that start was most of the proof. The server here imports those
libraries once and forks a child for each run. It never imports the course's own code: each
child imports that afresh from its own copy of the tree, as `python -m pytest` run there would.

A child starts a session of its own (its process group can be stopped whole, as with
`start_new_session`), moves to the run's folder, takes the run's environment, writes what it
prints to the run's output file and runs `pytest.main`; it sends its process id when it starts
and pytest's exit code when it ends over the connection it was forked for. The server ends
when its standard input closes, which happens when the process that started it ends, however
it ends.

    python scripts/preloaded.py SOCKET   (started by Server, below; prints "ready")
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import threading
import warnings
from pathlib import Path

# What the checks import; a library that is not installed is left out.
LIBRARIES = ["pytest", "hypothesis"]
# >>> stage 9
LIBRARIES += ["numpy", "scipy.stats", "matplotlib.pyplot"]
# <<<
# >>> stage 12
LIBRARIES += ["openai"]
# <<<


class Forked:
    """One run forked by the server, with the part of `subprocess.Popen` that copies.wait and
    copies._kill use: `pid`, `returncode` and `communicate(timeout)`."""

    def __init__(self, connection: socket.socket, output: Path) -> None:
        self._connection, self._output, self._read = connection, output, b""
        self.returncode: int | None = None
        self.pid = 0  # its session's id too, once it has started: killpg stops it whole

    def started(self) -> bool:
        """Whether the child has sent its process id (it does so before anything else)."""
        line = self._line(None)
        self.pid = int(line) if line else 0
        return self.pid > 0

    def _line(self, timeout: float | None) -> str | None:
        """The next line the child sends; None when it closed the connection without one."""
        self._connection.settimeout(timeout)
        while b"\n" not in self._read:
            try:
                data = self._connection.recv(64)
            except TimeoutError:
                raise subprocess.TimeoutExpired("pytest", timeout or 0.0) from None
            if not data:
                return None
            self._read += data
        line, self._read = self._read.split(b"\n", 1)
        return line.decode()

    def communicate(self, timeout: float | None = None) -> tuple[str, None]:
        if self.returncode is None:
            code = self._line(timeout)
            # a child that ends without sending its code was killed (by a limit, or Ctrl-C)
            self.returncode = int(code) if code is not None else -signal.SIGKILL
            self._connection.close()
        # a child stopped as soon as it started may not have opened its output file yet
        shown = self._output.read_text("utf-8", "replace") if self._output.exists() else ""
        return shown, None


class Server:
    """The preloaded process, started on first use; `start` returns None where it cannot
    run (no fork here, or it did not start), and the caller starts Python as before."""

    def __init__(self, address: Path) -> None:
        self.address = address
        self.process: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()

    def start(self, tree: Path, args: list[str], env: dict[str, str]) -> Forked | None:
        """pytest with `args` in `tree` under `env`, forked; its output goes beside `tree`."""
        with self._lock:
            if self.process is None and hasattr(os, "fork"):
                self.process = subprocess.Popen(
                    [sys.executable, __file__, str(self.address)],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                )  # fmt: skip
                assert self.process.stdout is not None
                if self.process.stdout.readline().strip() != "ready":
                    self.process.kill()  # it could not listen there: Python is started instead
                    self.process.wait()
            if self.process is None or self.process.poll() is not None:
                return None
        output = tree.parent / "output.txt"
        request = {"cwd": str(tree), "args": args, "env": env, "output": str(output)}
        connection = socket.socket(socket.AF_UNIX)
        try:
            connection.connect(str(self.address))
            connection.sendall(json.dumps(request).encode() + b"\n")
            forked = Forked(connection, output)
            if forked.started():
                return forked
        except OSError:
            pass
        connection.close()
        return None

    def close(self) -> None:
        if self.process is not None and self.process.stdin is not None:
            self.process.stdin.close()  # the server's cue to end
            self.process.wait()


def serve(address: str) -> None:
    """Import the libraries, then fork a child for each connection until stdin closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the runner, which ends us
    sys.path.pop(0)  # this script's folder: a child puts its own tree there
    for library in [*LIBRARIES, *pytest_plugins()]:
        with contextlib.suppress(ImportError):
            importlib.import_module(library)
    # what is loaded now is never garbage: pytest collects garbage as each run ends, and
    # without this it would walk every object of those libraries in every child
    gc.freeze()
    # a numerical library's BLAS keeps idle worker threads, which it restarts itself in a
    # forked child; Python 3.12 and later would warn at every fork that other threads exist
    warnings.filterwarnings("ignore", ".*fork", DeprecationWarning)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # ended children are reaped by the kernel
    with socket.socket(socket.AF_UNIX) as listener, selectors.DefaultSelector() as selector:
        try:
            listener.bind(address)  # a path longer than about 100 bytes cannot be bound
        except OSError as error:
            print(f"cannot listen at {address}: {error}", flush=True)
            return
        listener.listen()
        selector.register(listener, selectors.EVENT_READ)
        selector.register(sys.stdin, selectors.EVENT_READ)
        print("ready", flush=True)
        while True:
            for key, _ in selector.select():
                if key.fileobj is sys.stdin:
                    return  # the runner has ended, or closed us
                connection, _ = listener.accept()
                if os.fork() == 0:
                    listener.close()
                    run_one(connection)
                connection.close()


def pytest_plugins() -> list[str]:
    """The modules of pytest's own plugins and of the installed ones, which each run would
    otherwise import afresh."""
    from importlib.metadata import entry_points

    from _pytest.config import default_plugins

    installed = [point.module for point in entry_points(group="pytest11")]
    return [f"_pytest.{name}" for name in default_plugins] + installed


def run_one(connection: socket.socket) -> None:
    """In the forked child: one pytest run as the request describes it; never returns."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the checks wait for their own children
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.setsid()
    code = 70  # EX_SOFTWARE, should anything below fail before pytest reports
    try:
        with connection.makefile("rb") as reader:
            request = json.loads(reader.readline())
        connection.sendall(f"{os.getpid()}\n".encode())
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        output = os.open(request["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(output, 1)
        os.dup2(output, 2)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.path.insert(0, request["cwd"])  # as `python -m pytest` run there puts it
        sys.argv = ["pytest", *request["args"]]
        import random

        random.seed()  # each run its own random state, as a fresh process has
        import pytest

        code = int(pytest.main(request["args"]))
    except BaseException:  # whatever happened is reported, then the code is sent
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            connection.sendall(f"{code}\n".encode())
        finally:
            os._exit(code)


if __name__ == "__main__":
    serve(sys.argv[1])
