"""A judge on a leash: the time limit, the breaker for a dead instrument, and progress."""

import io
import sys
import time
from pathlib import Path

import pytest

from fakes.judges import HangingJudge, RateLimitedJudge, SteadyJudge
from stages.s06_resilience.resilience import call_with_timeout
from stages.s08_eval.judge import RateLimited, Unreachable, read_score
from stages.s12_real_judge.guard import (
    PROGRESS_EVERY_S,
    STOP_AFTER,
    TIMEOUT_S,
    Breaker,
    GuardedJudge,
    InstrumentDown,
    Progress,
)


class Scripted:
    """A judge that plays a list of outcomes, one per call: a reply, or an error to raise."""

    def __init__(self, outcomes):
        self.outcomes = list(outcomes)
        self.calls = 0

    def score(self, task, answer, reference):
        self.calls += 1
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    compare = score


@pytest.mark.failure_mode
def test_a_call_past_the_time_limit_is_unscored_timed_out():
    guarded = GuardedJudge(HangingJudge(), "hangs", timeout_s=0.1)
    reading = read_score(guarded, "t", "a", "r")
    assert (reading.value, reading.raw) == (None, None)
    assert reading.reason == "judge unavailable: TimeoutError: no answer within 0.1 s"


@pytest.mark.failure_mode
def test_a_judge_that_always_hangs_is_stopped_after_stop_after_calls_and_not_asked_again():
    asked = []

    class CountedHang(HangingJudge):
        def score(self, task, answer, reference):
            asked.append(answer)
            return super().score(task, answer, reference)

    guarded = GuardedJudge(CountedHang(), "hangs", timeout_s=0.05)
    readings = [read_score(guarded, "t", str(n), "r") for n in range(10)]
    assert len(asked) == STOP_AFTER  # the rest were refused without a call
    assert [r.reason.split(": ")[1] for r in readings] == (
        ["TimeoutError"] * (STOP_AFTER - 1) + ["InstrumentDown"] * (10 - STOP_AFTER + 1)
    )
    assert str(guarded.breaker.why).startswith(
        f"unavailable after {STOP_AFTER} failed calls in a row (TimeoutError: no answer within "
        "0.05 s); judge hangs, at most 0.05 s a call"
    )


@pytest.mark.failure_mode
def test_only_failures_in_a_row_open_the_breaker():
    dead = Unreachable("cannot connect")
    # two dead, a reply, two dead, a reply: never three in a row, never opened
    guarded = GuardedJudge(Scripted([dead, dead, "7", dead, dead, "8"]), "flaky")
    for _ in range(6):
        read_score(guarded, "t", "a", "r")
    assert guarded.breaker.why is None


@pytest.mark.failure_mode
def test_a_busy_instrument_is_not_a_dead_one():
    # a rate limit says the instrument is there, and busy: it never opens the breaker
    guarded = GuardedJudge(RateLimitedJudge(), "busy")
    readings = [read_score(guarded, "t", "a", "r") for _ in range(2 * STOP_AFTER)]
    assert all(r.reason.startswith("judge unavailable: RateLimited") for r in readings)
    assert guarded.breaker.why is None


def test_a_refused_connection_counts_like_a_time_out():
    breaker = Breaker("the endpoint")
    breaker.record(ConnectionRefusedError("refused"))
    breaker.record(TimeoutError("slow"))
    with pytest.raises(InstrumentDown, match=r"after 3 failed calls in a row \(Unreachable"):
        breaker.record(Unreachable("no such host"))
    with pytest.raises(InstrumentDown):
        breaker.check()  # and it stays open
    breaker.record(RateLimited("429"))  # nothing closes it again
    assert breaker.why is not None


def test_a_reply_that_is_not_text_is_passed_on_for_the_harness_to_read():
    guarded = GuardedJudge(Scripted([None, 7]), "odd")
    assert read_score(guarded, "t", "a", "r").reason == "the reply is not text but NoneType"
    assert read_score(guarded, "t", "a", "r").reason == "the reply is not text but int"


def test_a_judge_that_answers_in_time_is_answered_as_without_the_guard():
    steady, guarded = SteadyJudge(), GuardedJudge(SteadyJudge(), "steady", timeout_s=5)
    assert guarded.score("t", "a b", "a b c") == steady.score("t", "a b", "a b c")
    assert guarded.compare("t", "1 2", "1") == steady.compare("t", "1 2", "1") == "first"


def test_an_error_that_is_not_unavailability_still_propagates():
    known = {"present": 1}
    with pytest.raises(KeyError):
        call_with_timeout(lambda: known["missing"], 1.0)
    with pytest.raises(KeyError):  # a bug in the judge is a bug, not an unscored reply
        read_score(GuardedJudge(Scripted([KeyError("x")]), "buggy"), "t", "a", "r")


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.mark.failure_mode
def test_progress_without_a_terminal_is_a_line_every_few_seconds_and_nothing_for_a_short_run():
    stream, clock = io.StringIO(), Clock()
    progress = Progress("judge x", live=False, stream=stream, clock=clock)
    progress.begin()  # the first call begins at 0 s
    for done in range(1, 50):  # 49 calls in 4.9 s: a short run prints nothing
        clock.now = done * 0.1
        progress.tick(done, 0)
    assert stream.getvalue() == ""
    for done in range(50, 201):  # on to 20 s: a line at 5, 10, 15 and 20 s
        clock.now = done * 0.1
        progress.tick(done, 1, 400)
    lines = stream.getvalue().splitlines()
    assert len(lines) == int(20 / PROGRESS_EVERY_S)
    # at 5 s: 50 of 400 done, 10 a second, 350 to go: 35 s
    assert lines[0] == "judge x: 50/400 at 10.0/s, ETA 35 s, 1 failed, 5 s"


@pytest.mark.failure_mode
def test_a_call_that_takes_long_is_reported_while_it_is_waited_for():
    waited: list[float] = []

    def slow():
        time.sleep(2.3)
        return "7"

    finished = call_with_timeout(slow, 10.0, waited.append)
    assert finished == "7"
    # about once a second while the reply is awaited: at 1 s and at 2 s
    assert len(waited) == 2 and 0.9 < waited[0] < waited[1] < 2.3


def test_progress_on_a_terminal_rewrites_one_line_and_ends_it():
    stream, clock = io.StringIO(), Clock()
    progress = Progress("judge x", live=True, stream=stream, clock=clock)
    progress.begin()
    clock.now = 3.0
    progress.tick(30, 0)
    clock.now = 3.5
    progress.tick(35, 0)
    progress.finish()
    assert stream.getvalue() == (
        "\rjudge x: 30 calls at 10.0/s, 0 failed, 3 s\rjudge x: 35 calls at 10.0/s, 0 failed, 4 s\n"
    )


def test_the_guard_counts_calls_and_failures_and_says_what_it_waits_for():
    guarded = GuardedJudge(Scripted(["7", TimeoutError("slow"), "8"]), "counted", timeout_s=5)
    for _ in range(3):
        read_score(guarded, "t", "a", "r")
    assert (guarded.calls, guarded.failed) == (3, 1)
    stream, clock = io.StringIO(), Clock()
    guarded.progress = Progress("judge counted", live=False, stream=stream, clock=clock)
    guarded.progress.begin()
    clock.now = 6.0
    guarded.calls += 1  # a fourth call is asked, as _ask counts it, and 6 s pass
    guarded._waiting(6.0)
    assert stream.getvalue() == (
        "judge counted: 3 calls at 0.5/s, 1 failed, 6 s; waiting 6 s for call 4\n"
    )


def test_progress_goes_to_stderr_and_is_live_on_a_terminal_only(capsys):
    progress = Progress("judge x")
    assert progress.stream is sys.stderr and progress.live is sys.stderr.isatty()
    assert Progress("judge x", live=True).live is True


def test_a_finished_run_ends_only_a_live_line_it_drew():
    for live, shown, printed in ((True, True, "\n"), (True, False, ""), (False, True, "")):
        stream = io.StringIO()
        progress = Progress("judge x", live=live, stream=stream)
        progress.shown = shown
        progress.finish()
        progress.finish()  # a second finish adds nothing
        assert stream.getvalue() == printed


def test_one_call_is_one_call_and_an_idle_judge_is_quiet():
    stream, clock = io.StringIO(), Clock()
    progress = Progress("judge x", live=False, stream=stream, clock=clock)
    clock.now = 100.0  # created long ago, first asked now: the clock starts at the first call
    progress.begin()
    clock.now = 105.0
    progress.tick(1, 0)
    assert stream.getvalue() == "judge x: 1 call at 0.2/s, 0 failed, 5 s\n"


def test_the_lessons_quote_the_limits_the_code_uses():
    stage, root = Path(__file__).resolve().parents[1], Path(__file__).resolve().parents[3]
    lesson = " ".join((stage / "README.md").read_text().split())  # lines joined where wrapped
    for quoted in (
        f"(`guard.py`: {TIMEOUT_S:g} s, `--judge-timeout S`;",
        f"{STOP_AFTER} failures in a row that say the instrument is gone",
        f"in about {STOP_AFTER * TIMEOUT_S:g} s ({STOP_AFTER} time-outs of {TIMEOUT_S:g} s)",
        f"a line every {PROGRESS_EVERY_S:g} seconds in a CI log",
        f"which is stopped after {STOP_AFTER} time-outs",
        f"after {STOP_AFTER} dead-instrument failures in a row",
    ):
        assert quoted in lesson
    readme = " ".join((root / "README.md").read_text().split())
    assert f"(`--judge-timeout`, {TIMEOUT_S:g} s by default); {STOP_AFTER} time-outs" in readme
