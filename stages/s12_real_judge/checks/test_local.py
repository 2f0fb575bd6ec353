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

import pytest

from fakes.chat_server import ChatServer, Reply
from stages.s01_model.cli import ROOT
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.judge import read_comparison, read_score
from stages.s12_real_judge import local
from stages.s12_real_judge.client import OpenAIJudge
from stages.s12_real_judge.judges import LOCAL, resolve_real
from stages.s12_real_judge.local import LocalServer, ServerDown
from stages.s12_real_judge.settings import Settings, load_settings

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
from stages.s12_real_judge.local import LocalServer
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
        result = cli("stages.s12_real_judge", command, "--judge", "local")
        assert result.returncode == 2, result.stderr
        assert result.stderr.strip().splitlines() == [
            "error: the local judge's model (no_model_package_here) is missing; "
            "`make local-judge` installs it"
        ]
    with pytest.raises(CourseInputError, match="served by the commands"):
        resolve_real("local")


def structured_judge(server, tmp_path, form="json_object"):
    settings = Settings(structured=form, journal=str(tmp_path / "journal.sqlite"))
    return OpenAIJudge("m", settings, api_key="", base_url=server.url)


@pytest.mark.failure_mode
def test_a_structured_reply_is_read_only_when_it_is_exactly_the_schema(tmp_path):
    replies = ['{"score": 7}', '{"score": 11}', '{"score": 7, "reason": "x"}', '{"score": "7"}',
               'The answer is 10.', '{"verdict": "second"}', '{"verdict": "both"}']  # fmt: skip
    with ChatServer([Reply(text) for text in replies]) as server:
        judge = structured_judge(server, tmp_path)
        scores = [read_score(judge, "t", f"answer {n}", "r") for n in range(5)]
        verdicts = [read_comparison(judge, "t", f"a{n}", "b") for n in range(2)]
    assert [reading.value for reading in scores] == [7, None, None, None, None]
    assert [reading.raw for reading in scores[1:]] == replies[1:5]  # kept as the server sent them
    assert [reading.value for reading in verdicts] == ["second", None]
    sent = [request["response_format"] for request in server.requests]
    assert sent[0] == {"type": "json_object", "schema": {
        "type": "object", "properties": {"score": {"type": "integer", "minimum": 0, "maximum": 10}},
        "required": ["score"], "additionalProperties": False}}  # fmt: skip
    assert sent[5]["schema"]["properties"] == {
        "verdict": {"type": "string", "enum": ["first", "second", "tie"]}
    }
    assert '{"score": <integer from 0 to 10>}' in server.requests[0]["messages"][-1]["content"]


def test_openai_s_form_of_a_schema_and_bare_replies_without_one(tmp_path):
    with ChatServer([Reply('{"score": 4}'), Reply("4")]) as server:
        assert structured_judge(server, tmp_path / "a", "json_schema").score("t", "a", "r") == "4"
        assert structured_judge(server, tmp_path / "b", "").score("t", "a", "r") == "4"
    schema_form, bare = server.requests
    assert schema_form["response_format"]["type"] == "json_schema"
    assert schema_form["response_format"]["json_schema"]["strict"] is True
    assert "response_format" not in bare


@pytest.mark.failure_mode
def test_a_structured_form_the_client_does_not_know_is_refused(tmp_path):
    path = tmp_path / "judge.toml"
    path.write_text('structured = "xml"\n')
    with pytest.raises(CourseInputError, match=r"structured must be one of .*got 'xml'"):
        load_settings(path)


def test_a_local_model_is_journalled_by_its_file_not_its_port(tmp_path):
    settings = Settings(journal=str(tmp_path / "journal.sqlite"))
    with ChatServer() as first, ChatServer() as second:
        for server in (first, second):
            judge = OpenAIJudge("m", settings, base_url=server.url, identity="local:abc")
            assert judge.score("t", "a", "r") == "7"
    assert (len(first.requests), len(second.requests)) == (1, 0)  # the second run paid nothing


def test_local_judge_settings_file_overrides_the_local_defaults(tmp_path):
    path = tmp_path / "judge.toml"
    path.write_text("max_tokens = 40\n")
    settings = load_settings(path, LOCAL)
    assert (settings.structured, settings.max_tokens) == ("json_object", 40)


def test_the_lesson_states_the_local_judge_s_settings():
    lesson = " ".join((ROOT / "stages" / "s12_real_judge" / "README.md").read_text().split())
    assert f"asks for `{LOCAL.structured}` replies and allows {LOCAL.max_tokens} tokens" in lesson
