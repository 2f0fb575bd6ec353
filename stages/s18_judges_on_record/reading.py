"""Our own reading of a recorded judge's reply, strict, and set beside the benchmark's.

Asked to explain and end with "Therefore, Output (a) is better." (or (b)), these judges wrote
sentences: some put the verdict first, some argue both sides, one invents the next turns of
the chat. The rule, the whole of it: every "Output (a) is better" and "Output (b) is better"
counts, written exactly so, except after "nor " ("neither Output (a) nor Output (b) is
better" names no winner). Naming one slot, the reply chose it; naming none, or both, it is
unscored, and kept: we do not guess which sentence the judge meant. The benchmark took the
first slot its search found; every reply is set beside that reading, and every difference,
and every reply neither reads, is counted and kept.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

VERDICT = re.compile(r"(?<!nor )Output \(([ab])\) is better")  # searched: every match counts


def read_reply(reply: str) -> str | None:
    """The slot a reply chose, "a" or "b"; None when it names none or both."""
    named = set(VERDICT.findall(reply))
    return named.pop() if len(named) == 1 else None


def original(slot: str | None, swapped: bool) -> int | None:
    """The output a slot held: slot a shows output_1, unless the pair was shown swapped."""
    return None if slot is None else 1 + ((slot == "b") != swapped)


KINDS = ("same", "neither", "theirs only", "ours only", "different")  # ours beside theirs


@dataclass
class Beside:
    """Our reading beside the benchmark's, over every reply of one judge: how many of each
    kind, and every reply the two did not read alike or neither could read."""

    counts: Counter[str] = field(default_factory=Counter)
    shown: list[tuple[str, str, int | None, int | None]] = field(default_factory=list)

    def add(self, where: str, reply: str, ours: int | None, theirs: int | None) -> None:
        kind = ("neither" if ours is None else "same") if ours == theirs else (
            "theirs only" if ours is None else "ours only" if theirs is None else "different"
        )  # fmt: skip
        self.counts[kind] += 1
        if kind != "same":
            self.shown.append((where, reply, ours, theirs))
