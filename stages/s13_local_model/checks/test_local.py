"""The local judge's server: started on a free port, waited for, and always stopped; the
model file checked; structured replies asked for and unwrapped strictly. A loopback stand-in
(fakes/chat_server.py, run as a process) plays the server: no model is needed here."""

import importlib.util
import os
import signal
import subprocess
import sys
import time
import urllib.request
from contextlib import ExitStack, nullcontext
from dataclasses import replace

import pytest

from fakes.chat_server import ChatServer
from stages.s01_model.cli import ROOT
from stages.s01_model.errors import CourseInputError
from stages.s12_real_judge.judges import JudgeRequest
from stages.s12_real_judge.settings import load_settings
from stages.s13_local_model import local
from stages.s13_local_model.judges import LOCAL, resolve_judge, serve_local
from stages.s13_local_model.local import LocalServer, ServerDown
from stages.s13_local_model.schemas import StructuredSettings

STAND_IN = [sys.executable, "-m", "fakes.chat_server"]


def stand_in(port):
    return [*STAND_IN, "--port", str(port)]


def python(code):
    """A server command that runs `code` instead of serving."""
    return lambda port: [sys.executable, "-c", code]


def gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_the_server_answers_on_a_free_port_and_is_stopped_when_the_block_ends(tmp_path):
    server = LocalServer(stand_in, tmp_path / "server.log")
    with server as url:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        with urllib.request.urlopen(f"{url}/models", timeout=5) as answer:
            assert answer.status == 200
        process = server.process
        assert process is not None
    assert process.poll() is not None and gone(process.pid)


@pytest.mark.failure_mode
def test_a_server_that_will_not_start_is_one_line_with_the_end_of_its_log(tmp_path):
    code = "import sys; print('loading the model: bad magic number'); sys.exit(3)"
    server = LocalServer(python(code), tmp_path / "server.log")
    with pytest.raises(ServerDown, match=r"stopped before answering \(exit 3\): .*bad magic"):
        server.__enter__()
    assert server.process is None


class Watched(LocalServer):
    """A LocalServer that keeps every process it stops, so that a check can read its end."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.stopped = []

    def stop(self):
        if self.process is not None:
            self.stopped.append(self.process)
        super().stop()


@pytest.mark.failure_mode
def test_a_server_that_never_answers_is_stopped_at_the_start_limit(tmp_path):
    # it never answers; left alone, it ends by itself after 10 s, ten times the start limit:
    # a safety net, which names itself in the error if it is what ended the wait
    code = "import time; time.sleep(10); print('safety net: still not stopped after 10 s')"
    server = Watched(python(code), tmp_path / "server.log", start_timeout_s=1)
    with pytest.raises(ServerDown, match=r"did not answer within 1 s"):
        server.__enter__()
    [process] = server.stopped
    assert process.returncode == -signal.SIGTERM  # stopped at the limit, not waited for
    assert gone(process.pid)


@pytest.mark.failure_mode
def test_a_port_taken_before_the_server_binds_it_is_tried_again(tmp_path):
    tries = []

    def command(port):
        tries.append(port)
        if len(tries) == 1:  # what uvicorn says when another process got there first
            return python("print('[Errno 98] address already in use'); raise SystemExit(1)")(port)
        return stand_in(port)

    with LocalServer(command, tmp_path / "server.log") as url:
        assert url.endswith(f":{tries[-1]}/v1")
    assert len(tries) == 2


@pytest.mark.failure_mode
def test_a_server_that_dies_during_the_run_is_one_line_once_the_run_ends(tmp_path):
    server = LocalServer(stand_in, tmp_path / "server.log")
    with pytest.raises(ServerDown, match=r"the local judge's server died \(exit -9\)"), server:
        assert server.process is not None
        server.process.kill()
        server.process.wait()
    assert server.process is None


@pytest.mark.failure_mode
def test_sigterm_to_the_command_stops_the_server_too(tmp_path):
    pid_file = tmp_path / "server.pid"
    code = f"""
import pathlib, time
from stages.s13_local_model.local import LocalServer
command = lambda port: {STAND_IN!r} + ["--port", str(port)]
server = LocalServer(command, pathlib.Path({str(tmp_path / "log")!r}))
with server:
    open({str(pid_file)!r}, "w").write(str(server.process.pid))
    time.sleep(60)
"""
    command = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.1)
    command.send_signal(signal.SIGTERM)
    assert command.wait(20) == 128 + signal.SIGTERM
    assert gone(int(pid_file.read_text()))


@pytest.mark.failure_mode
def test_a_missing_or_corrupt_model_file_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(local, "MODEL_PACKAGE", "no_model_package_here")
    with pytest.raises(
        CourseInputError, match=r"model \(no_model_package_here\) is missing; `make"
    ):
        local.model_file()
    package = tmp_path / "some_model"
    package.mkdir()
    (package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(local, "MODEL_PACKAGE", "some_model")
    with pytest.raises(CourseInputError, match=r"model file is missing"):
        local.model_file()
    (package / local.MODEL_FILE).write_bytes(b"GGUF, but cut short")
    with pytest.raises(CourseInputError, match=r"sha256 [0-9a-f]{16}… is not b179c9523d0e6a0f…"):
        local.model_file()


@pytest.mark.failure_mode
def test_the_server_without_llama_cpp_installed_is_one_line(tmp_path, monkeypatch):
    found = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name == "llama_cpp" else found(name)
    )
    with pytest.raises(CourseInputError, match=r"^llama-cpp-python is not installed; `make local"):
        local.llama_server(tmp_path / local.MODEL_FILE)


@pytest.mark.failure_mode
def test_the_commands_without_the_local_model_say_how_to_install_it(cli, monkeypatch):
    monkeypatch.setattr(local, "MODEL_PACKAGE", "no_model_package_here")
    for command in ("eval", "calibrate", "gate"):
        result = cli("stages.s13_local_model", command, "--judge", "local")
        assert result.returncode == 2, result.stderr
        assert result.stderr.strip().splitlines() == [
            "error: the local judge's model (no_model_package_here) is missing; "
            "`make local-judge` installs it"
        ]
    with pytest.raises(CourseInputError, match="served by the commands"):
        resolve_judge(JudgeRequest("local"))


def test_a_local_model_is_journalled_by_its_file_not_its_port(tmp_path, monkeypatch):
    monkeypatch.setattr(local, "model_file", lambda: tmp_path / local.MODEL_FILE)
    monkeypatch.setattr(local, "llama_server", lambda model: stand_in)
    settings = replace(LOCAL, journal=str(tmp_path / "journal.sqlite"))
    with ChatServer() as first, ChatServer() as second:
        for server in (first, second):  # two runs, the model served on a port of its own each

            def on_its_port(command, log, url=server.url):
                return nullcontext(url)  # the stand-in's port, in place of a LocalServer's

            monkeypatch.setattr(local, "LocalServer", on_its_port)
            with ExitStack() as stack:
                judge = serve_local(stack, settings, JudgeRequest("local")).judge
                assert judge.score("t", "a", "r") == "7"
    assert (len(first.requests), len(second.requests)) == (1, 0)  # the second run paid nothing


def test_local_judge_settings_file_overrides_the_local_defaults(tmp_path):
    path = tmp_path / "judge.toml"
    path.write_text("max_tokens = 40\n")
    settings = load_settings(path, LOCAL)
    assert isinstance(settings, StructuredSettings)
    assert (settings.structured, settings.max_tokens) == ("json_object", 40)


def test_the_lesson_states_the_local_judge_s_settings():
    lesson = " ".join((ROOT / "stages" / "s13_local_model" / "README.md").read_text().split())
    assert f"asks for `{LOCAL.structured}` replies and allows {LOCAL.max_tokens} tokens" in lesson
