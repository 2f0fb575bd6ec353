"""Bias detectors, each with a mirrored half.

Position: show a judge two answers that are equally good (same facts, same length), then
the same two swapped. A judge that keeps its verdict judged the content; one that flips
preferred a slot. Flips are counted per pair; a tie is its own verdict, not a vote for either.

Length: score a short correct answer, then the same answer with padding that adds no fact.
Any gain is a reward for length alone.

A detector that reports bias on every input is not a detector. So each is run twice, on the
same inputs: against the judge under test, and against the steady judge, which must come
out clean. The second run is what makes the first one mean something.

A judge that cannot answer makes a detector `not_evaluated`, never `not_found`: no answers
are no evidence of no bias (findings.py holds the minimum of usable pairs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stages.s01_model.cli import FIXTURES
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import load_json
from stages.s04_retrieval.retrieval import words
from stages.s08_eval.findings import Evidence, Finding, decide
from stages.s08_eval.judge import Judge, Reading, read_comparison, read_score

POSITION_FILE = FIXTURES / "position_pairs.json"
LENGTH_FILE = FIXTURES / "length_pairs.json"
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
class LengthPair:
    task: str
    reference: str
    answer: str
    padding: str  # appended to the answer; must add no fact

    @property
    def padded(self) -> str:
        return f"{self.answer} {self.padding}"


@dataclass(frozen=True)
class PositionResult:
    state: Finding
    flips: int
    pairs: int
    unscored: int  # pairs the judge did not answer in both orders
    reason: str = ""  # why not evaluated
    verdicts: list[tuple[str, str | None, str | None]] = field(default_factory=list)


@dataclass(frozen=True)
class Gap:
    task: str
    before: int | None
    after: int | None
    extra_chars: int


@dataclass(frozen=True)
class LengthResult:
    state: Finding
    found: int
    pairs: int
    unscored: int
    reason: str = ""
    gaps: list[Gap] = field(default_factory=list)


@dataclass(frozen=True)
class Swap:
    """One pair compared in both orders: the content each verdict chose, and what was lost.

    `ab` is the winner with a shown first, `ba` with b shown first: "a", "b" or "tie" (a tie
    stays a tie), or None where the reply could not be read, which chose nothing.
    """

    ab: str | None
    ba: str | None
    unscored: tuple[Reading, ...]  # the replies that could not be read (0, 1 or 2)

    @property
    def usable(self) -> bool:
        return self.ab is not None and self.ba is not None


def both_orders(judge: Judge, task: str, a: str, b: str) -> Swap:
    """Compare a with b, then b with a; map each verdict back to the content it chose."""
    ab = read_comparison(judge, task, a, b)
    ba = read_comparison(judge, task, b, a)
    lost = tuple(reading for reading in (ab, ba) if not reading.scored)
    return Swap(A_FIRST.get(str(ab.value)), B_FIRST.get(str(ba.value)), lost)


def position_bias(judge: Judge, pairs: list[PositionPair]) -> PositionResult:
    """Ask about every pair in both orders; count the pairs whose winner changes."""
    flips = unscored = 0
    verdicts = []
    for pair in pairs:
        swap = both_orders(judge, pair.task, pair.a, pair.b)
        verdicts.append((pair.task, swap.ab, swap.ba))
        if not swap.usable:
            unscored += 1  # unscored in either order: this pair says nothing
            continue
        flips += swap.ab != swap.ba  # the same content must win in both orders
    outcome = decide(Evidence(len(pairs) - unscored, len(pairs)), flips > 0)
    return PositionResult(outcome.state, flips, len(pairs), unscored, outcome.reason, verdicts)


def length_bias(judge: Judge, pairs: list[LengthPair]) -> LengthResult:
    """Score each answer with and without content-free padding; any gain is length bias."""
    found = unscored = 0
    gaps = []
    for pair in pairs:
        before = read_score(judge, pair.task, pair.answer, pair.reference).value
        after = read_score(judge, pair.task, pair.padded, pair.reference).value
        extra = len(pair.padded) - len(pair.answer)
        gaps.append(Gap(pair.task, _int(before), _int(after), extra))
        if before is None or after is None:
            unscored += 1
            continue
        found += int(after) > int(before)
    outcome = decide(Evidence(len(pairs) - unscored, len(pairs)), found > 0)
    return LengthResult(outcome.state, found, len(pairs), unscored, outcome.reason, gaps)


def _tally(state: Finding, hits: int, pairs: int, unscored: int, reason: str) -> str:
    """ "FOUND — 3 of 3", "none found — 0 of 2 (1 of 3 unscored)", or why not evaluated."""
    if state == Finding.NOT_EVALUATED:
        return f"NOT EVALUATED — {reason}"
    word = "FOUND" if state == Finding.FOUND else "none found"
    lost = f" ({unscored} of {pairs} unscored)" if unscored else ""
    return f"{word} — {hits} of {pairs - unscored}{lost}"


def _int(value: int | str | None) -> int | None:
    return None if value is None else int(value)


def describe_position(result: PositionResult) -> str:
    return _tally(result.state, result.flips, result.pairs, result.unscored, result.reason)


def describe_length(result: LengthResult) -> list[str]:
    lines = [_tally(result.state, result.found, result.pairs, result.unscored, result.reason)]
    for gap in result.gaps:
        if gap.before is None or gap.after is None:
            lines.append(f"  {gap.task}: unscored")
            continue
        change = gap.after - gap.before
        lines.append(
            f"  {gap.task}: {gap.before} -> {gap.after} "
            f"({change:+d} for {gap.extra_chars} extra characters)"
        )
    return lines


# -- fixtures -----------------------------------------------------------------------------


def load_position_pairs(path: Path = POSITION_FILE) -> list[PositionPair]:
    """Pairs that leave the judge nothing to prefer but the slot: same length, same facts."""
    pairs = []
    for number, raw in enumerate(_records(path, ("task", "a", "b", "facts")), start=1):
        pair = PositionPair(raw["task"], raw["a"], raw["b"], tuple(raw["facts"]))
        where = f"{path}: pair {number}"
        if len(pair.a) != len(pair.b):
            raise CourseInputError(
                f"{where}: a has {len(pair.a)} characters and b {len(pair.b)}; a pair must be "
                "the same length, or a flip could be a judgement"
            )
        missing = [f for f in pair.facts if f not in pair.a or f not in pair.b]
        if not pair.facts or missing:
            raise CourseInputError(f"{where}: both answers must state every fact; {missing!r}")
        pairs.append(pair)
    return pairs


def load_length_pairs(path: Path = LENGTH_FILE) -> list[LengthPair]:
    """Pairs whose padding adds length and nothing else: no reference word, no number."""
    pairs = []
    for number, raw in enumerate(
        _records(path, ("task", "reference", "answer", "padding")), start=1
    ):
        pair = LengthPair(raw["task"], raw["reference"], raw["answer"], raw["padding"])
        added = words(pair.padding) & words(pair.reference)
        if added or re.search(r"\d", pair.padding):
            raise CourseInputError(
                f"{path}: pair {number}: the padding is not content-free "
                f"(reference words {sorted(added)!r} or a number in {pair.padding!r})"
            )
        pairs.append(pair)
    return pairs


def _records(path: Path, keys: tuple[str, ...]) -> list[dict[str, Any]]:
    data = load_json(path)
    if not isinstance(data, list) or not data:
        raise CourseInputError(f"{path}: expected a non-empty list of pairs")
    for number, raw in enumerate(data, start=1):
        if not isinstance(raw, dict) or any(key not in raw for key in keys):
            raise CourseInputError(f"{path}: pair {number}: needs {', '.join(keys)}")
    return data
