"""Length bias: does the judge pay for length that says nothing?

Score a short correct answer, then the same answer with padding that adds no fact (no word
of the reference, no number): any gain is a reward for length alone. As with position, a
pair unscored on either side says nothing, and the steady judge is the mirrored half.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from stages.s01_model.cli import FIXTURES
from stages.s01_model.errors import CourseInputError
from stages.s04_retrieval.retrieval import words
from stages.s08_eval.findings import Evidence, Finding, decide
from stages.s08_eval.judge import Judge, read_score
from stages.s08_eval.position import read_pairs

LENGTH_FILE = FIXTURES / "length_pairs.json"


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
class Gap:
    """One pair's scores without and with the padding; None where a reply was unscored."""

    task: str
    before: int | None
    after: int | None
    extra_chars: int


@dataclass(frozen=True)
class LengthResult:
    state: Finding
    found: int  # pairs whose padded answer scored higher
    pairs: int
    unscored: int  # pairs the judge did not score on both sides
    reason: str = ""  # why not evaluated
    gaps: list[Gap] = field(default_factory=list)


def length_bias(judge: Judge, pairs: list[LengthPair]) -> LengthResult:
    """Score each answer with and without content-free padding; any gain is length bias."""
    found = unscored = 0
    gaps = []
    for pair in pairs:
        before = read_score(judge, pair.task, pair.answer, pair.reference).value
        after = read_score(judge, pair.task, pair.padded, pair.reference).value
        gaps.append(Gap(pair.task, _int(before), _int(after), len(pair.padded) - len(pair.answer)))
        if before is None or after is None:
            unscored += 1
            continue
        found += int(after) > int(before)
    outcome = decide(Evidence(len(pairs) - unscored, len(pairs)), found > 0)
    return LengthResult(outcome.state, found, len(pairs), unscored, outcome.reason, gaps)


def _int(value: int | str | None) -> int | None:
    return None if value is None else int(value)


def load_length_pairs(path: Path = LENGTH_FILE) -> list[LengthPair]:
    """Pairs whose padding adds length and nothing else: no reference word, no number."""
    pairs = []
    keys = ("task", "reference", "answer", "padding")
    for number, raw in enumerate(read_pairs(path, keys), start=1):
        pair = LengthPair(raw["task"], raw["reference"], raw["answer"], raw["padding"])
        added = words(pair.padding) & words(pair.reference)
        if added or re.search(r"\d", pair.padding):
            raise CourseInputError(
                f"{path}: pair {number}: the padding is not content-free "
                f"(reference words {sorted(added)!r} or a number in {pair.padding!r})"
            )
        pairs.append(pair)
    return pairs
