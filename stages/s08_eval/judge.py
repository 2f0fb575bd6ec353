"""The judge is an instrument: it returns raw text, and the harness decides what it means.

A score is a bare integer from 0 to 10; a comparison is exactly `first`, `second` or `tie`
(case and surrounding whitespace aside). Anything else, a reply that is not text included,
is *unscored*, with the raw reply kept. When the judge cannot answer at all (rate-limited,
timed out, over budget, no connection), it is unavailable: unscored, with the reason. Any
other exception is a bug, and is allowed to crash.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Protocol

SCORE = re.compile(r"10|[0-9]")  # matched against the whole trimmed reply, never searched
VERDICTS = ("first", "second", "tie")


class Judge(Protocol):
    """An instrument that grades answers. Returns raw text; the harness parses it."""

    def score(self, task: str, answer: str, reference: str) -> str: ...
    def compare(self, task: str, first: str, second: str) -> str: ...


class RateLimited(Exception):
    """The judge's provider refused the call for now (HTTP 429 or its equivalent)."""


class OverBudget(Exception):
    """The run has spent the judge calls (or tokens) it was allowed; this one was not made."""


class Unreachable(ConnectionError):
    """The judge could not be reached at all: connection refused, unknown host, TLS failure."""


# The closed family of "instrument unavailable" errors. Anything else propagates.
UNAVAILABLE: tuple[type[Exception], ...] = (RateLimited, OverBudget, TimeoutError, ConnectionError)


@dataclass(frozen=True)
class Reading:
    """One reply from the judge, read: `value` is None when unscored, and `reason` says why."""

    value: int | str | None
    raw: str | None  # the reply as given; None when no reply came back
    reason: str = ""


@dataclass(frozen=True)
class Instrument:
    """What a judge that describes itself (one behind an endpoint) says of it; never a key."""

    model: str
    endpoint: str  # the host it is asked at, or where its replies come from instead
    requests: int  # requests sent, retries included
    paid_calls: int  # replies received
    from_cache: int  # replies found without asking
    kept_in: str  # where those were found ("the journal")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def parse_score(raw: str) -> int | None:
    """A bare integer 0-10, or None. "7" and " 7\\n" read as 7; "7/10", "7.0", "I'd say 7" don't."""
    text = raw.strip()
    return int(text) if SCORE.fullmatch(text) else None


def parse_comparison(raw: str) -> str | None:
    text = raw.strip().lower()
    return text if text in VERDICTS else None


def read(call: Callable[[], object], parse: Callable[[str], int | str | None]) -> Reading:
    """Put one question to the judge and read the reply; unavailability becomes unscored."""
    try:
        raw = call()
    except UNAVAILABLE as error:
        return Reading(None, None, f"judge unavailable: {type(error).__name__}: {error}")
    if not isinstance(raw, str):
        return Reading(None, repr(raw), f"the reply is not text but {type(raw).__name__}")
    value = parse(raw)
    return Reading(value, raw, "unparseable reply" if value is None else "")


def read_score(judge: Judge, task: str, answer: str, reference: str) -> Reading:
    return read(lambda: judge.score(task, answer, reference), parse_score)


def read_comparison(judge: Judge, task: str, first: str, second: str) -> Reading:
    return read(lambda: judge.compare(task, first, second), parse_comparison)


class CountingJudge:
    """Wraps a judge and counts every call put to it, including calls that fail."""

    def __init__(self, judge: Judge, name: str) -> None:
        self.judge = judge
        self.name = name
        self.calls = 0

    def score(self, task: str, answer: str, reference: str) -> str:
        self.calls += 1
        return self.judge.score(task, answer, reference)

    def compare(self, task: str, first: str, second: str) -> str:
        self.calls += 1
        return self.judge.compare(task, first, second)
