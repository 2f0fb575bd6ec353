"""Position bias: does the judge prefer a slot, whatever is in it?

Show the judge two equally good answers (same facts, same length), then the same two
swapped. A judge that keeps its verdict judged the content; one that flips preferred a slot.
A tie is its own verdict, not a vote for either; a pair unscored in either order says
nothing. The report runs this on the steady judge too: that mirrored half must find nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stages.s01_model.cli import FIXTURES
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import load_json
from stages.s08_eval.findings import Evidence, Finding, decide
from stages.s08_eval.judge import Judge, Reading, read_comparison

POSITION_FILE = FIXTURES / "position_pairs.json"
# Which content a verdict chose, by the order the pair was shown in. A tie chose neither.
A_FIRST = {"first": "a", "second": "b", "tie": "tie"}
B_FIRST = {"first": "b", "second": "a", "tie": "tie"}


@dataclass(frozen=True)
class PositionPair:
    task: str
    a: str
    b: str
    facts: tuple[str, ...]  # what both answers must state, word for word


@dataclass(frozen=True)
class Swap:
    """One pair in both orders: the content each verdict chose ("a", "b", "tie"; None where
    the reply could not be read), with a shown first (`ab`) and b shown first (`ba`)."""

    ab: str | None
    ba: str | None
    unscored: tuple[Reading, ...]  # the replies that could not be read (0, 1 or 2)

    @property
    def usable(self) -> bool:
        return self.ab is not None and self.ba is not None


@dataclass(frozen=True)
class PositionResult:
    state: Finding
    flips: int
    pairs: int
    unscored: int  # pairs the judge did not answer in both orders
    reason: str = ""  # why not evaluated
    verdicts: list[tuple[str, str | None, str | None]] = field(default_factory=list)


def both_orders(judge: Judge, task: str, a: str, b: str) -> Swap:
    """Compare a with b, then b with a; map each verdict back to the content it chose."""
    ab = read_comparison(judge, task, a, b)
    ba = read_comparison(judge, task, b, a)
    lost = tuple(reading for reading in (ab, ba) if reading.value is None)
    return Swap(A_FIRST.get(str(ab.value)), B_FIRST.get(str(ba.value)), lost)


def position_bias(judge: Judge, pairs: list[PositionPair]) -> PositionResult:
    """Ask about every pair in both orders; count the pairs whose winner changes."""
    swaps = [both_orders(judge, pair.task, pair.a, pair.b) for pair in pairs]
    usable = [swap for swap in swaps if swap.usable]  # unscored in either order: it says nothing
    flips = sum(swap.ab != swap.ba for swap in usable)  # the same content must win both times
    outcome = decide(Evidence(len(usable), len(pairs)), flips > 0)
    verdicts = [(pair.task, swap.ab, swap.ba) for pair, swap in zip(pairs, swaps, strict=True)]
    unscored = outcome.evidence.unscored
    return PositionResult(outcome.state, flips, len(pairs), unscored, outcome.reason, verdicts)


def load_position_pairs(path: Path = POSITION_FILE) -> list[PositionPair]:
    """Pairs that leave the judge nothing to prefer but the slot: same length, same facts."""
    pairs = []
    for number, raw in enumerate(read_pairs(path, ("task", "a", "b", "facts")), start=1):
        pair = PositionPair(raw["task"], raw["a"], raw["b"], tuple(raw["facts"]))
        where = f"{path}: pair {number}"
        if len(pair.a) != len(pair.b):
            raise CourseInputError(
                f"{where}: a has {len(pair.a)} characters and b {len(pair.b)}; a pair must be "
                "the same length, or a flip could be a judgement"
            )
        missing = [fact for fact in pair.facts if fact not in pair.a or fact not in pair.b]
        if not pair.facts or missing:
            raise CourseInputError(f"{where}: both answers must state every fact; {missing!r}")
        pairs.append(pair)
    return pairs


def read_pairs(path: Path, keys: tuple[str, ...]) -> list[dict[str, Any]]:
    """A pair file: a non-empty list of objects, each with every one of `keys`."""
    data = load_json(path)
    if not isinstance(data, list) or not data:
        raise CourseInputError(f"{path}: expected a non-empty list of pairs")
    for number, raw in enumerate(data, start=1):
        if not isinstance(raw, dict) or any(key not in raw for key in keys):
            raise CourseInputError(f"{path}: pair {number}: needs {', '.join(keys)}")
    return data
