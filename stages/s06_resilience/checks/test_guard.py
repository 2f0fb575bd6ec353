"""A service on a leash: the time limit, the breaker for a dead instrument, and progress."""

import io
import sys
import threading
import time

import pytest

from stages.s06_resilience.guard import (
    DEAD,
    PROGRESS_EVERY_S,
    STOP_AFTER,
    TIMEOUT_S,
    Breaker,
    Guard,
    GuardedJudge,
    InstrumentDown,
    Progress,
)
from stages.s06_resilience.resilience import call_with_timeout


class Hangs:
    """A judge that never answers: each call waits until the process ends. Counts its calls."""

    def __init__(self):
        self.asked = []

    def score(self, task, answer, reference):
        self.asked.append(answer)
        threading.Event().wait()

    compare = score


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


class Echo:
    """A judge that answers at once with what it was asked."""

    def score(self, task, answer, reference):
        return f"score {task} {answer} {reference}"

    def compare(self, task, first, second):
        return f"compare {task} {first} {second}"


def outcome(call):
    """What a call came to: its reply, or the name of the error it raised."""
    try:
        return call()
    except ConnectionError as error:  # InstrumentDown among them
        return type(error).__name__
    except TimeoutError as error:
        return f"TimeoutError: {error}"


@pytest.mark.failure_mode
def test_a_call_past_the_time_limit_is_a_time_out():
    guarded = GuardedJudge(Hangs(), "hangs", Guard(timeout_s=0.1))
    with pytest.raises(TimeoutError, match=r"^no answer within 0\.1 s$"):
        guarded.score("t", "a", "r")


@pytest.mark.failure_mode
def test_a_judge_that_always_hangs_is_stopped_after_stop_after_calls_and_not_asked_again():
    hangs = Hangs()
    guarded = GuardedJudge(hangs, "hangs", Guard(timeout_s=0.05))
    outcomes = [outcome(lambda n=n: guarded.score("t", str(n), "r")) for n in range(10)]
    assert hangs.asked == ["0", "1", "2"]  # STOP_AFTER = 3 calls; the rest refused unasked
    # the first two time out; the third opens the breaker, which refuses it and the seven after
    assert outcomes == ["TimeoutError: no answer within 0.05 s"] * 2 + ["InstrumentDown"] * 8
    assert guarded.down() == (
        "unavailable after 3 failed calls in a row (TimeoutError: no answer within 0.05 s); "
        "judge hangs, at most 0.05 s a call; the rest were not asked"
    )
    assert STOP_AFTER == 3  # the figure the two lines above are written for


def test_the_message_names_what_sets_the_time_limit():
    guard = Guard(timeout_s=0.05, set_by="--judge-timeout")
    guarded = GuardedJudge(Hangs(), "slow", guard)
    for _ in range(3):
        outcome(lambda: guarded.compare("t", "a", "b"))
    assert "; judge slow, at most 0.05 s a call (--judge-timeout); " in str(guarded.down())


@pytest.mark.failure_mode
def test_only_failures_in_a_row_open_the_breaker():
    dead = ConnectionRefusedError("refused")
    # two dead, a reply, two dead, a reply: never three in a row, never opened
    guarded = GuardedJudge(Scripted([dead, dead, "7", dead, dead, "8"]), "flaky")
    outcomes = [outcome(lambda: guarded.score("t", "a", "r")) for _ in range(6)]
    assert outcomes == ["ConnectionRefusedError"] * 2 + ["7"] + ["ConnectionRefusedError"] * 2 + [
        "8"
    ]
    assert guarded.down() is None


@pytest.mark.failure_mode
def test_a_dropped_connection_is_not_a_dead_instrument():
    # a reset says the service was there a moment ago: six in a row never open the breaker
    resets = [ConnectionResetError("reset by peer") for _ in range(2 * STOP_AFTER)]
    guarded = GuardedJudge(Scripted(resets), "busy")
    outcomes = [outcome(lambda: guarded.score("t", "a", "r")) for _ in range(2 * STOP_AFTER)]
    assert outcomes == ["ConnectionResetError"] * 6
    assert guarded.down() is None


def test_a_refused_connection_counts_like_a_time_out_and_the_breaker_stays_open():
    breaker = Breaker("the service")
    breaker.record(ConnectionRefusedError("refused"))
    breaker.record(TimeoutError("slow"))
    with pytest.raises(InstrumentDown, match=r"after 3 failed calls in a row \(Connection"):
        breaker.record(ConnectionRefusedError("refused again"))
    with pytest.raises(InstrumentDown):
        breaker.check()  # and it stays open
    breaker.record(None)  # nothing closes it again, not even a reply
    assert breaker.why is not None


def test_a_caller_may_count_another_way_of_being_gone():
    class NoSuchHost(ConnectionError):
        pass

    breaker = Breaker("the service", (*DEAD, NoSuchHost))
    breaker.record(NoSuchHost("a"))
    breaker.record(NoSuchHost("b"))
    with pytest.raises(InstrumentDown, match=r"\(NoSuchHost: c\); the service;"):
        breaker.record(NoSuchHost("c"))
    plain = Breaker("the service")  # without it, the same three failures are not counted
    for name in "abc":
        plain.record(NoSuchHost(name))
    assert plain.why is None


def test_a_refusal_is_a_connection_error():
    # so that whoever counts a failed connection as "unavailable" counts a refusal with it
    assert issubclass(InstrumentDown, ConnectionError)


def test_a_reply_that_is_not_text_is_passed_on_as_it_came():
    guarded = GuardedJudge(Scripted([None, 7]), "odd")
    assert guarded.score("t", "a", "r") is None
    assert guarded.compare("t", "a", "b") == 7


def test_a_judge_that_answers_in_time_is_answered_as_without_the_guard():
    guarded = GuardedJudge(Echo(), "echo", Guard(timeout_s=5))
    assert guarded.score("t", "a b", "a b c") == "score t a b a b c"
    assert guarded.compare("t", "1 2", "1") == "compare t 1 2 1"


def test_an_error_that_says_nothing_of_the_instrument_still_propagates():
    known = {"present": 1}
    with pytest.raises(KeyError):
        call_with_timeout(lambda: known["missing"], 1.0)
    guarded = GuardedJudge(Scripted([KeyError("x"), KeyError("y"), KeyError("z"), "7"]), "buggy")
    for _ in range(3):  # a bug in the judge is a bug, and says nothing of the instrument
        with pytest.raises(KeyError):
            guarded.score("t", "a", "r")
    assert guarded.score("t", "a", "r") == "7" and guarded.down() is None


def test_the_defaults_a_guard_is_asked_with():
    # 30 s a call, a time-out or a refused connection counted, lines rather than a live line
    assert Guard() == Guard(30.0, (TimeoutError, ConnectionRefusedError), False, "")
    assert TIMEOUT_S == 30.0
    assert GuardedJudge(Echo(), "echo").progress.live is False


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
    assert len(lines) == 4 and PROGRESS_EVERY_S == 5.0
    # at 5 s: 50 of 400 done, 10 a second, 350 to go: 35 s
    assert lines[0] == "judge x: 50/400 at 10.0/s, ETA 35 s, 1 failed, 5 s"


def test_progress_over_a_list_of_steps_counts_them_and_no_failures():
    stream, clock = io.StringIO(), Clock()
    progress = Progress("windows: files read", live=False, stream=stream, clock=clock)

    def read():  # each step takes 2 s on the clock
        for name in progress.each(["a", "b", "c", "d", "e", "f"]):
            clock.now += 2.0
            yield name

    assert list(read()) == list("abcdef")  # every item, in order
    # a line once 5 s have passed, then at most every 5 s: after the 3rd (6 s), 6th (12 s)
    assert stream.getvalue().splitlines() == [
        "windows: files read: 3/6 at 0.5/s, ETA 6 s, 6 s",
        "windows: files read: 6/6 at 0.5/s, ETA 0 s, 12 s",
    ]


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
    guarded = GuardedJudge(Scripted(["7", TimeoutError("slow"), "8"]), "counted", Guard(5))
    for _ in range(3):
        outcome(lambda: guarded.score("t", "a", "r"))
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
