"""A guard for a service asked many times: a time limit on each call, a breaker, progress.

`call_with_timeout` keeps one call from hanging its caller. A service asked hundreds of times
in a run (later in the course, a judge grading hundreds of answers) needs two things more:

1. A breaker. After STOP_AFTER failures in a row that say the service is gone (a time-out, a
   refused connection), nothing more is asked: every later call is refused at once with
   `InstrumentDown`. A busy service is not a gone one, so only the failures in `dead` count,
   and a reply in between starts the count again.
2. Progress. A run that takes long says on stderr how far it has got; one that ends quickly
   says nothing.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TextIO, TypeVar

from stages.s06_resilience.resilience import call_with_timeout

TIMEOUT_S = 30.0  # per call; with STOP_AFTER = 3 a judge that always hangs stops in ~90 s
STOP_AFTER = 3  # dead-instrument failures in a row before the run stops asking
PROGRESS_EVERY_S = 5.0  # without a terminal: one progress line this often, once this late
LIVE_AFTER_S = 2.0  # on a terminal: a live line once a run has taken this long

# What counts towards the breaker: the service is not there, rather than busy. A dropped
# connection is not here (the service was there a moment ago); a caller that knows another
# way of being gone adds it (a server whose host cannot be found, say).
DEAD: tuple[type[BaseException], ...] = (TimeoutError, ConnectionRefusedError)

T = TypeVar("T")


class InstrumentDown(ConnectionError):
    """The breaker is open: refused unasked. A ConnectionError, so that whoever counts a
    connection that failed as "unavailable" counts this refusal the same way."""


@dataclass(frozen=True)
class Guard:
    """How a guarded judge is asked."""

    timeout_s: float = TIMEOUT_S  # what one call may take
    dead: tuple[type[BaseException], ...] = DEAD  # the failures that open the breaker
    progress: bool | None = False  # True: a live line; None: live on a terminal; False: lines
    set_by: str = ""  # what sets the time limit, named when the breaker opens: an option


class Breaker:
    """Counts dead-instrument failures in a row; at STOP_AFTER it opens and stays open."""

    def __init__(self, instrument: str, dead: tuple[type[BaseException], ...] = DEAD) -> None:
        self.instrument, self.dead = instrument, dead  # what to name in the message; never a key
        self.in_a_row = 0
        self.why: str | None = None  # set once, when it opens
        self.lock = threading.Lock()

    def check(self) -> None:
        """Refuse to ask once the breaker is open."""
        if self.why is not None:
            raise InstrumentDown(self.why)

    def record(self, error: BaseException | None) -> None:
        """Note how a call ended; raise InstrumentDown on the failure that opens the breaker."""
        with self.lock:
            if not isinstance(error, self.dead):
                self.in_a_row = 0  # a reply, or a fault of another kind: the instrument is there
                return
            self.in_a_row += 1
            if self.why is None and self.in_a_row >= STOP_AFTER:
                self.why = (
                    f"unavailable after {self.in_a_row} failed calls in a row "
                    f"({type(error).__name__}: {error}); {self.instrument}; "
                    "the rest were not asked"
                )
        self.check()


class Progress:
    """How far a run has got, on stderr; silent for a run that ends quickly."""

    def __init__(
        self,
        label: str,
        live: bool | None = None,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label, self.clock = label, clock
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.started: float | None = None  # when the first call began: an idle judge is quiet
        self.last, self.shown = 0.0, False  # when a line was last shown; whether one is live
        self.lock = threading.Lock()

    def begin(self) -> float:
        """Start the clock at the first call (later calls change nothing); when it started."""
        with self.lock:
            if self.started is None:
                self.started = self.last = self.clock()
            return self.started

    def each(self, items: Sequence[T]) -> Iterator[T]:
        """The items one by one, with a line (when one is due) as each is done: for a run of
        steps that do not fail one at a time, as files read or pairs of windows compared."""
        self.begin()
        for done, item in enumerate(items, start=1):
            yield item
            self.tick(done, None, len(items))
        self.finish()

    def tick(self, done: int, failed: int | None, total: int | None = None, note: str = "") -> None:
        """Show how far the run has got, when a line is due; `note` says what it waits for,
        `failed` how many failed (None: not counted, and not shown)."""
        started, now = self.begin(), self.clock()
        with self.lock:
            elapsed = now - started
            after, every = (LIVE_AFTER_S, 0.1) if self.live else (PROGRESS_EVERY_S,) * 2
            if elapsed < after or now - self.last < every:
                return
            self.last, self.shown = now, True
            count = f"{done}/{total}" if total else f"{done} call{'s' * (done != 1)}"
            rate = done / elapsed  # a line is due only `after` seconds in: never a zero
            eta = f", ETA {(total - done) / rate:.0f} s" if total and rate else ""
            line = f"{self.label}: {count} at {rate:.1f}/s{eta}"
            line += f", {failed} failed" if failed is not None else ""
            line += f", {elapsed:.0f} s" + (f"; {note}" if note else "")
            shown, end = (f"\r{line}", "") if self.live else (line, "\n")
            print(shown, end=end, file=self.stream, flush=True)  # flushed: a log shows it now

    def finish(self) -> None:
        """End a live line, so that what is printed next starts on its own."""
        if self.live and self.shown:
            print(file=self.stream, flush=True)
            self.shown = False


class Graded(Protocol):
    """What a guard wraps: a judge, whose replies it passes on as they came."""

    def score(self, task: str, answer: str, reference: str) -> Any: ...
    def compare(self, task: str, first: str, second: str) -> Any: ...


class GuardedJudge:
    """Any judge, with a time limit on each call, a breaker and progress."""

    def __init__(self, judge: Graded, name: str, guard: Guard | None = None) -> None:
        self.judge, self.guard = judge, guard or Guard()
        limit = f"at most {self.guard.timeout_s:g} s a call"
        limit += f" ({self.guard.set_by})" if self.guard.set_by else ""
        self.breaker = Breaker(f"judge {name}, {limit}", self.guard.dead)
        self.progress = Progress(f"judge {name}", live=self.guard.progress)
        self.calls = self.failed = 0

    # The reply is passed on as it came, even when it is not text: the harness reads it.
    def score(self, task: str, answer: str, reference: str) -> Any:
        return self._ask(lambda: self.judge.score(task, answer, reference))

    def compare(self, task: str, first: str, second: str) -> Any:
        return self._ask(lambda: self.judge.compare(task, first, second))

    def _ask(self, call: Callable[[], Any]) -> Any:
        self.breaker.check()
        self.calls += 1
        self.progress.begin()
        error: Exception | None = None
        try:
            return call_with_timeout(call, self.guard.timeout_s, self._waiting)
        except Exception as failed:
            self.failed, error = self.failed + 1, failed
            raise
        finally:  # the breaker's InstrumentDown, on the failure that opens it, goes up instead
            self.progress.tick(self.calls, self.failed)
            self.breaker.record(error)

    def down(self) -> str | None:
        """Why the run stopped asking this judge; None while it is asked."""
        return self.breaker.why

    def _waiting(self, seconds: float) -> None:
        note = f"waiting {seconds:.0f} s for call {self.calls}"
        self.progress.tick(self.calls - 1, self.failed, note=note)
