"""The guard on the wire: stage 6's, and what an endpoint's breaker counts as gone.

The guard itself (the time limit, the breaker, progress) is checked with stage 6, and a
plug-in judge behind it with stage 8; here, what stage 12 adds and what its lessons quote.
"""

from pathlib import Path

import pytest

from stages.s06_resilience.guard import PROGRESS_EVERY_S, STOP_AFTER, TIMEOUT_S, InstrumentDown
from stages.s08_eval.judge import RateLimited, Unreachable
from stages.s12_real_judge.guard import Breaker


@pytest.mark.failure_mode
def test_an_endpoint_s_breaker_counts_a_refused_connection_and_no_such_host_like_a_time_out():
    breaker = Breaker("the endpoint")
    breaker.record(ConnectionRefusedError("refused"))
    breaker.record(TimeoutError("slow"))
    with pytest.raises(InstrumentDown, match=r"after 3 failed calls in a row \(Unreachable"):
        breaker.record(Unreachable("no such host"))
    with pytest.raises(InstrumentDown):
        breaker.check()  # and it stays open
    breaker.record(RateLimited("429"))  # nothing closes it again
    assert breaker.why is not None


def test_an_endpoint_that_is_busy_or_drops_a_connection_is_not_gone():
    breaker = Breaker("the endpoint")
    for _ in range(2 * STOP_AFTER):  # what client.py raises once its retries run out
        breaker.record(RateLimited("HTTP 429"))
        breaker.record(ConnectionError("HTTP 503 after 5 attempts"))
        breaker.record(ConnectionResetError("connection lost"))
    assert breaker.why is None


def test_the_lessons_quote_the_limits_the_code_uses():
    stage, root = Path(__file__).resolve().parents[1], Path(__file__).resolve().parents[3]
    lesson = " ".join((stage / "README.md").read_text().split())  # lines joined where wrapped
    for quoted in (
        f"(stage 6's `guard.py`: {TIMEOUT_S:g} s, `--judge-timeout S`;",
        f"{STOP_AFTER} failures in a row that say the instrument is gone",
        f"in about {STOP_AFTER * TIMEOUT_S:g} s ({STOP_AFTER} time-outs of {TIMEOUT_S:g} s)",
        f"a line every {PROGRESS_EVERY_S:g} seconds in a CI log",
        f"which is stopped after {STOP_AFTER} time-outs",
        f"after {STOP_AFTER} dead-instrument failures in a row",
    ):
        assert quoted in lesson
    readme = " ".join((root / "README.md").read_text().split())
    assert f"(`--judge-timeout`, {TIMEOUT_S:g} s by default); {STOP_AFTER} time-outs" in readme
