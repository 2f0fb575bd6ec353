"""How far a long run has got, on stderr, so that a run over fifty files is not silent.

Stdout holds the report (or its JSON), so progress never goes there. A run that ends quickly
says nothing: the first line comes once the run has taken EVERY_S seconds, and later lines
at most that often.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TextIO, TypeVar

T = TypeVar("T")

EVERY_S = 5.0  # no line before a run has taken this long; then at most one this often


class Progress:
    """How many of a run's files are read and its pairs tested, when a line is due."""

    def __init__(
        self, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.stream, self.clock = stream, clock  # no stream: stderr, as it is when a line is due
        self.last = clock()  # when the run began, then when the last line was shown

    def each(self, items: Sequence[T], what: str, verb: str) -> Iterator[T]:
        """The items, one by one; once the caller is done with one, a line saying how many
        are `verb` (`windows: file 12/50 read`), if a line is due."""
        for done, item in enumerate(items, start=1):
            yield item
            now = self.clock()
            if now - self.last >= EVERY_S:
                self.last = now
                line = f"windows: {what} {done}/{len(items)} {verb}"
                print(line, file=self.stream or sys.stderr, flush=True)  # a log shows it now
