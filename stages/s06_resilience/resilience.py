"""Calling something that may be slow or may fail: a deadline, then a few patient retries.

Two kinds of failure are worth another try: a timeout and a refused connection (the service
may come back). Anything else a tool raises is a bug or a hard "no", and trying again only
repeats it. Retries wait longer each time (exponential backoff) so that a struggling
service is not hammered.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")
TRANSIENT: tuple[type[Exception], ...] = (TimeoutError, ConnectionError)


@dataclass(frozen=True)
class Resilience:
    """How patient the agent is with its tools."""

    timeout_s: float = 0.25  # a tool call slower than this is abandoned
    attempts: int = 3  # tries per call, the first one included
    backoff_s: float = 0.05  # wait before the second try...
    factor: float = 2.0  # ...multiplied by this before each further one

    def delays(self) -> list[float]:
        """The waits between tries: attempts 3, backoff 0.05, factor 2 gives [0.05, 0.1]."""
        return [self.backoff_s * self.factor**retry for retry in range(self.attempts - 1)]


def call_with_timeout(
    fn: Callable[[], T], timeout_s: float, waiting: Callable[[float], None] | None = None
) -> T:
    """Run `fn` in a helper thread and wait at most `timeout_s` for it.

    Python cannot stop a running thread, so a call that times out is abandoned, not
    cancelled: the thread (a daemon, so it never holds up exit) finishes on its own, and its
    result is thrown away. `waiting`, if given, is told the seconds waited so far about once
    a second, so that a long wait can be shown while it lasts.
    """
    outcome: dict[str, Any] = {}
    finished = threading.Event()

    def target() -> None:
        try:
            outcome["value"] = fn()
        except BaseException as error:  # handed to the waiting caller below
            outcome["error"] = error
        finally:
            finished.set()

    threading.Thread(target=target, daemon=True).start()
    started = time.monotonic()
    while not finished.wait(min(1.0, max(0.0, started + timeout_s - time.monotonic()))):
        waited = time.monotonic() - started
        if waited >= timeout_s:
            raise TimeoutError(f"no answer within {timeout_s:g} s")
        if waiting is not None:
            waiting(waited)
    if "error" in outcome:
        raise outcome["error"]
    value: T = outcome["value"]
    return value


def with_retries(
    fn: Callable[[], T], policy: Resilience, sleep: Callable[[float], None] = time.sleep
) -> tuple[T, int]:
    """Call `fn` until it succeeds or the attempts run out; return the value and the tries.

    Only TRANSIENT errors are retried. When the last try fails, its error is raised with the
    number of tries in `error.attempts`.
    """
    delays = policy.delays()
    for attempt in range(1, policy.attempts + 1):
        try:
            return fn(), attempt
        except TRANSIENT as error:
            if attempt == policy.attempts:
                error.attempts = attempt  # type: ignore[attr-defined]
                raise
            sleep(delays[attempt - 1])
    raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover
