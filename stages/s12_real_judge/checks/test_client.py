"""A real judge over HTTP, against a chat-completions server on 127.0.0.1 that the tests run.

Nothing is sent anywhere but loopback. The server answers from a script: replies, latency,
429 with Retry-After, 500, malformed bodies, a hang past the timeout, a dropped connection.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import fields
from pathlib import Path

import pytest

from fakes.chat_server import ChatServer, Drop, Hang, Malformed, Reply, Status
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.judge import OverBudget, RateLimited, read_score
from stages.s08_eval.specs import JudgeChoice
from stages.s12_real_judge import prompts
from stages.s12_real_judge.client import OpenAIJudge
from stages.s12_real_judge.endpoint import DEFAULT_BASE_URL, on_this_machine, safe_url
from stages.s12_real_judge.prefetch import ask_ahead, prefetch
from stages.s12_real_judge.settings import Settings, load_settings

KEY = "sk-test-K3Y-DISTINCTIVE-9f8e7d"
ROOT = Path(__file__).resolve().parents[3]
EVAL = [sys.executable, "-m", "stages.s12_real_judge", "eval"]


def judge_for(server, tmp_path, waits=None, **settings):
    config = Settings(**{"timeout_s": 2.0, "journal": str(tmp_path / "cache.sqlite"), **settings})
    return OpenAIJudge(
        "some-model",
        config,
        api_key=KEY,
        base_url=server.url,
        sleep=(waits.append if waits is not None else lambda _: None),
        progress=False,
    )


def test_a_scripted_reply_is_read_like_any_judge_s(tmp_path):
    with ChatServer([Reply("8"), Reply(" tie\n")]) as server:
        judge = judge_for(server, tmp_path)
        assert read_score(judge, "task", "answer", "reference").value == 8
        assert judge.compare("task", "a", "b") == " tie\n"
        sent = server.requests[0]
        assert sent["model"] == "some-model" and sent["temperature"] == 0.0
        assert "Answer to grade:\nanswer" in sent["messages"][1]["content"]


@pytest.mark.failure_mode
def test_429_is_retried_honouring_retry_after_then_answered(tmp_path):
    waits: list[float] = []
    with ChatServer([Status(429, {"Retry-After": "3"}), Reply("6")]) as server:
        judge = judge_for(server, tmp_path, waits, backoff_s=0.01)
        assert judge.score("t", "a", "r") == "6"
    assert waits == [3.0]  # the server asked for 3 s, more than the 0.01 s backoff


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("fault", "error", "message"),
    [
        (Status(429), RateLimited, "HTTP 429 from http://127.0.0.1"),
        (Status(503), ConnectionError, "HTTP 503 from http://127.0.0.1"),
        (Drop(), ConnectionError, "connection to http://127.0.0.1"),
    ],
)
def test_a_fault_that_persists_becomes_an_unavailable_judge(tmp_path, fault, error, message):
    waits: list[float] = []
    with ChatServer([fault] * 3) as server:
        judge = judge_for(server, tmp_path, waits, attempts=3, backoff_s=0.5)
        with pytest.raises(error, match=message):
            judge.score("t", "a", "r")
        assert len(server.requests) == 3
    assert len(waits) == 2 and 0.25 <= waits[0] <= 0.5 and 0.5 <= waits[1] <= 1.0  # jittered
    with ChatServer([fault] * 3) as server:
        reading = read_score(judge_for(server, tmp_path, attempts=3), "t2", "a", "r")
        assert reading.value is None and reading.reason.startswith("judge unavailable")


def test_a_fault_says_how_many_attempts_it_took_in_words_that_count(tmp_path):
    for attempts, said in ((1, "after 1 attempt$"), (2, "after 2 attempts$")):
        with ChatServer([Status(503)] * attempts) as server:
            judge = judge_for(server, tmp_path, attempts=attempts, backoff_s=0.01)
            with pytest.raises(ConnectionError, match=said):
                judge.score("t", "a", "r")


@pytest.mark.failure_mode
def test_a_hang_past_the_timeout_is_timed_out_and_not_retried(tmp_path):
    with ChatServer([Hang(3.0)]) as server:
        judge = judge_for(server, tmp_path, timeout_s=0.3)
        with pytest.raises(TimeoutError, match=r"within 0\.3 s"):
            judge.score("t", "a", "r")
        assert len(server.requests) == 1


@pytest.mark.failure_mode
def test_a_reply_of_the_wrong_shape_is_kept_as_raw_text_and_unscored(tmp_path):
    with ChatServer([Malformed('{"choices": []}'), Reply("I'd say 7")]) as server:
        judge = judge_for(server, tmp_path)
        first = read_score(judge, "t", "a", "r")
        second = read_score(judge, "t", "b", "r")
    assert first.value is None and first.raw is not None and "choices" in first.raw
    assert (second.value, second.raw) == (None, "I'd say 7")


@pytest.mark.failure_mode
def test_calls_past_the_budget_are_never_made(tmp_path):
    with ChatServer() as server:
        judge = judge_for(server, tmp_path, max_calls=2)
        judge.score("t", "a", "r")
        judge.score("t", "b", "r")
        with pytest.raises(OverBudget):
            judge.score("t", "c", "r")
        assert len(server.requests) == 2


@pytest.mark.failure_mode
def test_a_client_error_stops_the_run_with_one_line_and_no_key(tmp_path):
    with ChatServer([Status(401)]) as server, pytest.raises(CourseInputError) as raised:
        judge_for(server, tmp_path).score("t", "a", "r")
    assert "HTTP 401" in str(raised.value) and KEY not in str(raised.value)


def test_the_same_question_asked_again_is_a_new_repeat_and_a_rerun_pays_nothing(tmp_path):
    with ChatServer() as server:
        first = judge_for(server, tmp_path)
        replies = [first.score("t", "a", "r") for _ in range(3)]  # three repeats, three calls
        again = judge_for(server, tmp_path)
        assert [again.score("t", "a", "r") for _ in range(3)] == replies
        assert len(server.requests) == 3
        assert again.describe().to_json() == {
            "model": "some-model", "endpoint": server.url,
            "requests": 0, "paid_calls": 0, "from_cache": 3, "kept_in": "the journal",
        }  # fmt: skip
        uncached = OpenAIJudge("some-model", Settings(journal=""), api_key=KEY, base_url=server.url)
        uncached.score("t", "a", "r")
        assert len(server.requests) == 4


def test_concurrent_prefetch_gives_the_replies_of_a_sequential_run(tmp_path):
    def numbered(request):
        return Reply(str(len(json.dumps(request["messages"])) % 11))

    questions = [[{"role": "user", "content": f"q{n % 7}"}] for n in range(40)]
    with ChatServer(default=numbered, latency=0.02) as server:
        sequential = judge_for(server, tmp_path / "a")
        expected = [sequential.ask(q) for q in questions]
        parallel = judge_for(server, tmp_path / "b", concurrency=8)
        assert prefetch(parallel, [(q, "score") for q in questions]) == 40
        assert [parallel.ask(q) for q in questions] == expected
        assert parallel.paid == 40 and len(server.requests) == 80


def test_a_settings_file_overrides_only_what_it_names_and_a_bad_one_is_named(tmp_path):
    assert load_settings() == Settings()
    path = tmp_path / "judge.toml"
    path.write_text("timeout_s = 5\nattempts = 2\n")
    # 5 is read as 5.0 seconds; every setting the file does not name keeps its default
    assert load_settings(path) == Settings(timeout_s=5.0, attempts=2)
    path.write_text("concurrency = 'many'\n")
    with pytest.raises(CourseInputError, match="concurrency must be int, got 'many'"):
        load_settings(path)
    path.write_text("retries = 3\n")
    with pytest.raises(CourseInputError, match="unknown setting 'retries'; known: temperature"):
        load_settings(path)


def test_every_default_has_its_reason_beside_it_and_the_lesson_quotes_them():
    source = (ROOT / "stages" / "s12_real_judge" / "settings.py").read_text().splitlines()
    for field in fields(Settings):
        line = next(line for line in source if line.strip().startswith(f"{field.name}:"))
        assert "  # " in line, f"{field.name} has no comment beside its default"
    lesson = " ".join((ROOT / "stages" / "s12_real_judge" / "README.md").read_text().split())
    assert f"(`attempts`, {Settings().attempts} by default)" in lesson


def run_report(server, tmp_path, *extra):
    tmp_path.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.url}
    config = tmp_path / "judge.toml"
    config.write_text(f'journal = "{tmp_path / "cache.sqlite"}"\nattempts = 2\nbackoff_s = 0.01\n')
    command = [*EVAL, "--judge", "openai:some-model",
               "--json", "--out", str(tmp_path / "report.json"),
               "--judge-config", str(config), *extra]  # fmt: skip
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.failure_mode
def test_the_report_against_a_server_counts_exactly_the_injected_faults(tmp_path):
    # three scoring questions meet a 500 twice (both attempts): three unscored end-to-end cases
    broken = {"Order A1001 has shipped", "Refunds are paid within", "Gift cards cannot"}

    def faulty(request):
        text = json.dumps(request["messages"])
        if any(marker in text for marker in broken) and "Answer A" not in text:
            return Status(500)
        return Reply("tie" if "Answer A" in text else "8")

    with ChatServer(default=faulty) as server:
        result = run_report(server, tmp_path)
        asked = [json.dumps(request["messages"]) for request in server.requests]
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    levels = report["levels"]["end_to_end"]
    assert levels["unscored"] == 2 + 3  # two runs with no answer, three unavailable
    assert sum(levels.values()) == report["cases"]["total"]
    # 32 questions, each asked once; the 3 broken ones twice (attempts = 2) in the fetch pass
    # and not again in the report pass: 32 + 3 requests, 29 replies received
    assert len(asked) == 32 + 3 and len(set(asked)) == 32
    instrument = report["judge"]["instrument"]
    assert (instrument["requests"], instrument["paid_calls"]) == (35, 29)
    assert report["flakiness"]["state"] == "not_evaluated"
    assert report["sampling"]["state"] == "not_evaluated"
    assert report["judge"]["instrument"]["endpoint"] == server.url


def free_port():
    """A loopback port where nothing listens (it was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.failure_mode
def test_a_refused_connection_is_not_retried_and_three_in_a_row_stop_the_run(tmp_path):
    waits: list[float] = []
    url = f"http://127.0.0.1:{free_port()}/v1"
    config = Settings(timeout_s=2.0, journal=str(tmp_path / "c.sqlite"), attempts=5)
    judge = OpenAIJudge("m", config, api_key=KEY, base_url=url, sleep=waits.append)
    readings = [read_score(judge, "t", str(n), "r") for n in range(5)]
    assert waits == []  # no backoff: nothing is listening, and waiting will not change that
    assert [r.reason.split(": ")[1] for r in readings] == ["Unreachable"] * 2 + [
        "InstrumentDown"
    ] * 3
    assert judge.describe().requests == 3 and judge.describe().paid_calls == 0
    down = judge.breaker.why
    assert down is not None and url in down and "Connection refused" in down
    assert KEY not in down


def within_safety_net(command, env, seconds=120):
    """`command`'s run; one still running after `seconds` (many times what it needs) fails,
    saying so: the limit only stops a run that hangs, it is not what the check asserts."""
    try:
        return subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=seconds
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"safety net: the command still ran after {seconds} s and was stopped")


@pytest.mark.failure_mode
def test_a_dead_endpoint_is_asked_three_times_and_the_run_ends_with_one_line(tmp_path):
    url = f"http://127.0.0.1:{free_port()}/v1"
    env = {**os.environ, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": url}
    config = tmp_path / "judge.toml"
    # a short backoff: were a refusal tried again, as it must not be, the run would say so in
    # a second rather than after minutes of waiting
    config.write_text(f'journal = "{tmp_path / "cache.sqlite"}"\nbackoff_s = 0.01\n')
    command = [*EVAL, "--judge", "openai:m", "--json",
               "--judge-config", str(config), "--out", str(tmp_path / "r.json")]  # fmt: skip
    result = within_safety_net(command, env)
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error")]
    assert len(errors) == 1 and url in errors[0] and "(OPENAI_BASE_URL)" in errors[0]
    report = json.loads(result.stdout)
    # a refused connection is not tried again (Unreachable, no backoff), and three in a row
    # open the breaker: three requests, and at most the 8 - 1 others in flight at that moment
    # (concurrency 8 by default); the rest of the 32 questions are not asked
    assert report["judge"]["unavailable"].startswith(
        "unavailable after 3 failed calls in a row (Unreachable: cannot connect"
    )
    assert 3 <= report["judge"]["instrument"]["requests"] <= 3 + 8 - 1
    assert report["judge"]["instrument"]["paid_calls"] == 0
    assert KEY not in result.stdout + result.stderr


@pytest.mark.failure_mode
def test_no_key_for_an_endpoint_off_this_machine_is_one_line_before_any_call(tmp_path):
    with pytest.raises(CourseInputError) as raised:
        OpenAIJudge("m", Settings(journal=""), api_key="", base_url="https://judge.example/v1")
    assert str(raised.value) == (
        "--judge openai:m: OPENAI_API_KEY is not set, and https://judge.example/v1 is not on "
        "this machine; set the key (a server on 127.0.0.1 or localhost needs none)"
    )
    with ChatServer([Reply("6")]) as server:  # loopback: no key needed
        judge = OpenAIJudge("m", Settings(journal=""), api_key="", base_url=server.url)
        assert judge.score("t", "a", "r") == "6"


@pytest.mark.failure_mode
def test_a_hanging_server_stops_the_run_after_three_time_outs(tmp_path):
    with ChatServer(default=lambda request: Hang(5.0)) as server:
        judge = judge_for(server, tmp_path, timeout_s=0.1, concurrency=4)
        planned = [([{"role": "user", "content": f"q{n}"}], "score") for n in range(40)]
        assert prefetch(judge, planned) == 40
        # each request waits out its 0.1 s and is not tried again; three time-outs in a row
        # open the breaker, and only the 4 - 1 others in flight then are still sent: of the
        # 40 questions, at most 6 wait for the limit, and the rest are refused unasked
        assert 3 <= judge.describe().requests <= 3 + 4 - 1
        assert len(server.requests) <= 3 + 4 - 1  # what the server saw, counted on its side
    assert str(judge.breaker.why).startswith(
        "unavailable after 3 failed calls in a row (TimeoutError: no reply from http://127.0.0.1:"
    )
    assert judge.describe().paid_calls == judge.describe().from_cache == 0


def test_the_endpoint_is_printed_without_credentials():
    assert safe_url("https://user:pw@host.example:8443/v1?api-key=s3cret#x") == (
        "https://host.example:8443/v1"
    )


@pytest.mark.failure_mode
def test_the_key_appears_nowhere(tmp_path):
    with ChatServer(default=lambda r: Status(401)) as server:
        refused = run_report(server, tmp_path)
    with ChatServer() as server:
        fine = run_report(server, tmp_path / "ok")
    assert refused.returncode == 2
    places = [refused.stdout, refused.stderr, fine.stdout, fine.stderr]
    places += [p.read_bytes().decode("latin-1") for p in tmp_path.rglob("*") if p.is_file()]
    assert not any(KEY in text for text in places)


@pytest.mark.failure_mode
def test_a_killed_run_pays_for_no_received_reply_twice(tmp_path):
    config = tmp_path / "judge.toml"
    config.write_text(f'journal = "{tmp_path / "cache.sqlite"}"\nconcurrency = 1\n')
    command = [*EVAL, "--judge", "openai:some-model",
               "--out", str(tmp_path / "r.json"), "--judge-config", str(config)]  # fmt: skip
    with ChatServer(latency=0.1) as server:
        env = {**os.environ, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.url}
        child = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)  # fmt: skip
        deadline = time.monotonic() + 60
        while len(server.requests) < 10 and time.monotonic() < deadline:
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)  # no chance to clean up: the journal must hold
        child.wait()
        rerun = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        assert rerun.returncode == 0, rerun.stderr
        total = len(server.requests)
    # One whole run asks 32 questions. Every reply received before the kill was kept; only
    # the one request in flight at that moment (concurrency 1) can have been asked twice.
    assert 32 <= total <= 33


@pytest.mark.parametrize(
    ("env", "given", "instrument"),
    [
        ({"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, None,
         "endpoint http://127.0.0.1:9/v1 (OPENAI_BASE_URL), model m, OPENAI_API_KEY set"),
        ({"OPENAI_API_KEY": KEY}, None,
         "endpoint https://api.openai.com/v1 (the default), model m, OPENAI_API_KEY set"),
        ({"OPENAI_BASE_URL": "http://elsewhere.example/v1"}, "http://localhost:8/v1",
         "endpoint http://localhost:8/v1 (given), model m, OPENAI_API_KEY not set"),
    ],
)  # fmt: skip
def test_the_endpoint_and_key_come_from_the_usual_variables(monkeypatch, env, given, instrument):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    judge = OpenAIJudge("m", Settings(journal="", timeout_s=4.0), base_url=given)
    assert judge.breaker.instrument == f"{instrument}, at most 4 s a call"
    assert judge.where.url == (given or env.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL)
    assert (judge.where.key == KEY) is ("OPENAI_API_KEY" in env)
    assert judge.client.api_key == (judge.where.key or "no-key-needed-on-loopback")
    assert judge.journal is None and judge.progress is None


def test_the_journal_is_where_the_settings_say_and_off_when_asked(tmp_path):
    with ChatServer() as server:
        judge = judge_for(server, tmp_path)
        assert judge.journal is not None
        off = OpenAIJudge("m", Settings(journal=str(tmp_path / "c.sqlite")), api_key=KEY,
                          base_url=server.url, use_journal=False)  # fmt: skip
        assert off.journal is None


def test_a_judge_planning_writes_down_what_it_will_ask_and_answers_parseably():
    planner = OpenAIJudge("m", Settings(journal=""), base_url="http://127.0.0.1:9/v1")
    planner.planned = []  # nothing listens on port 9: a question asked would fail
    assert read_score(planner, "t", "a", "r").value == 5
    assert planner.compare("t", "first answer", "second answer") == "tie"
    assert planner.describe().requests == 0
    assert planner.planned == [
        (prompts.score_messages("t", "a", "r"), "score"),
        (prompts.compare_messages("t", "first answer", "second answer"), "verdict"),
    ]


def test_each_prompt_puts_every_text_under_its_own_heading():
    system, user = prompts.score_messages("TASK", "ANSWER", "REFERENCE")
    assert (system, user["role"]) == ({"role": "system", "content": prompts.SYSTEM}, "user")
    assert user["content"].startswith("Question from a customer:\nTASK\n\nReference")
    assert (
        "(what a correct answer says):\nREFERENCE\n\nAnswer to grade:\nANSWER\n\n"
        in (user["content"])
    )
    system, user = prompts.compare_messages("TASK", "ONE", "TWO")
    assert (system, user["role"]) == ({"role": "system", "content": prompts.SYSTEM}, "user")
    assert user["content"].startswith(
        "Question from a customer:\nTASK\n\nAnswer A:\nONE\n\nAnswer B:\nTWO\n\nWhich answer"
    )


@pytest.mark.parametrize(
    ("url", "here"),
    [("http://127.0.0.1:8080/v1", True), ("http://localhost/v1", True),
     ("http://[::1]:9/v1", True), ("https://api.openai.com/v1", False),
     ("http://10.0.0.5/v1", False), ("not a url", False)],
)  # fmt: skip
def test_only_a_server_on_this_machine_is_spared_the_key(url, here):
    assert on_this_machine(url) is here


@pytest.mark.failure_mode
def test_a_run_that_fails_while_planned_leaves_a_judge_that_asks(tmp_path):
    def broken_report(chosen):
        chosen.judge.score("t", "a", "r")  # planned, not asked
        raise ValueError("a case file that breaks half-way")

    with ChatServer(default=lambda request: Reply("8")) as server:
        judge = judge_for(server, tmp_path)
        with pytest.raises(ValueError):
            ask_ahead(JudgeChoice(judge, "openai:some-model", fake=False), broken_report)
        assert judge.planned is None
        assert read_score(judge, "t", "a", "r").value == 8  # the server's reply, not the plan's 5
        assert len(server.requests) == 1
