"""Calibrating one judge: every text scored, every measure taken, one record returned.

Every measurement runs on the same judge with the same settings. Each text is scored `repeats`
times and the usable replies averaged, so that sampling noise does not pass for bias; a reply
that cannot be used is kept with its reason and counted, never read as a score.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from stages.s08_eval.judge import CountingJudge, Reading, parse_score, read
from stages.s08_eval.position import Swap, both_orders
from stages.s09_calibration.calibration import CalCase
from stages.s09_calibration.measures import (
    CONCISE,
    VERBOSITY,
    Measure,
    Pairwise,
    Scores,
    SelfPreference,
    TwinShift,
    pairwise,
    self_preference,
    twin_shift,
)
from stages.s09_calibration.twins import Twins

REPEATS = 3  # scorings of each text, averaged
SEED = 9  # for every bootstrap


def open_task(question: str, facts: tuple[str, ...]) -> str:
    """The task this stage's judge sees: the question, and quality left to the judge."""
    return f"Rate the answer's overall quality from 0 to 10.\n\nQuestion: {question}"


@dataclass(frozen=True)
class Asking:
    """How the judge is asked and how its reply is read. This stage asks the open question and
    reads a bare integer; a later stage passes in a rubric and a reply with a reason."""

    form: str = "bare"
    task: Callable[[str, tuple[str, ...]], str] = open_task
    parse: Callable[[str], int | None] = parse_score
    hint: str = ""  # what the judge was asked for, said when its replies were unscored


@dataclass
class Scorer:
    """Puts every question to one judge; keeps each unusable reply, and the last usable ones."""

    judge: CountingJudge
    repeats: int
    asking: Asking
    unscored: list[Reading] = field(default_factory=list)
    replies: dict[str, str] = field(default_factory=dict)  # each answer's last usable one

    def mean_score(self, case: CalCase, text: str) -> float | None:
        """The mean of the usable scores of `repeats` scorings; None when none was usable."""
        task = self.asking.task(case.question, case.facts)
        values = []
        for _ in range(self.repeats):
            reading = read(lambda: self.judge.score(task, text, case.reference), self.asking.parse)
            if reading.value is None:
                self.unscored.append(reading)
                continue
            values.append(float(reading.value))
            if text == case.answer and reading.raw is not None:
                self.replies[case.id] = reading.raw  # as given: a later stage reads its reason
        return sum(values) / len(values) if values else None

    def both_orders(self, task: str, a: str, b: str) -> Swap:
        swap = both_orders(self.judge, task, a, b)
        self.unscored.extend(swap.unscored)  # an unreadable verdict is unscored, not a tie
        return swap


@dataclass(frozen=True)
class Unscored:
    """The unusable replies: how many, why (by kind, most common first), one as given."""

    count: int
    reasons: dict[str, int]
    example: str | None


def summarise(readings: list[Reading]) -> Unscored:
    """Group reasons by their kind ("judge unavailable: TimeoutError"), not their detail."""
    why = Counter(": ".join(reading.reason.split(": ")[:2]) for reading in readings)
    example = next((reading.raw for reading in readings if reading.raw is not None), None)
    return Unscored(len(readings), dict(why.most_common()), example)


@dataclass(frozen=True)
class JudgeUse:
    name: str
    calls: int  # every call this run put to it, unusable replies included


@dataclass(frozen=True)
class Series:
    """The measured points behind the summaries, for plots and for anyone re-checking them."""

    original: tuple[tuple[int, float | None], ...]  # (length, mean score) of each answer
    padded: tuple[tuple[int, float | None], ...]  # the same for its padded twin
    human_pass: tuple[bool, ...]


UNSHOWN = {"json": False}  # kept for the measures of later stages, not part of the report


@dataclass(frozen=True)
class Run:
    """Every measurement of one judge, in the report's order; a later stage's run adds its
    own measures to these, made from the same scores."""

    verbosity: TwinShift
    concise: TwinShift
    pairwise: Pairwise
    self_preference: SelfPreference
    unscored: Unscored
    judge: JudgeUse
    series: Series
    scores: Scores = field(metadata=UNSHOWN)  # each answer's, by id
    replies: dict[str, str] = field(metadata=UNSHOWN)  # each answer's last usable, by id

    def measures(self) -> dict[str, Measure]:
        """Every measure of the run, by name, in the report's order."""
        return {name: m for name, m in vars(self).items() if isinstance(m, Measure)}

    def not_evaluated(self) -> list[str]:
        """The measures that had too little usable data to conclude anything."""
        return [name for name, m in self.measures().items() if m.state == "not_evaluated"]


def calibrate(
    judge: CountingJudge,
    cases: list[CalCase],
    twins: dict[str, Twins],
    *,
    repeats: int = REPEATS,
    seed: int = SEED,
    asking: Asking = Asking(),
) -> Run:
    """Every measurement of one judge on the calibration set and its twins."""
    scorer = Scorer(judge, repeats, asking)
    # 1) score every answer and both of its twins
    originals = {c.id: scorer.mean_score(c, c.answer) for c in cases}
    padded = {c.id: scorer.mean_score(c, twins[c.id].padded) for c in cases}
    concise = {c.id: scorer.mean_score(c, twins[c.id].concise) for c in cases}
    # 2) the length of every original and padded twin, with its score
    original = tuple((len(c.answer), originals[c.id]) for c in cases)
    longer = tuple((len(twins[c.id].padded), padded[c.id]) for c in cases)
    # 3) every measure; pairwise asks its own questions
    return Run(
        twin_shift(originals, padded, repeats, seed, VERBOSITY),
        twin_shift(originals, concise, repeats, seed, CONCISE),
        pairwise(scorer.both_orders, cases),
        self_preference(cases, originals, seed),
        summarise(scorer.unscored),
        JudgeUse(judge.name, judge.calls),
        Series(original, longer, tuple(c.human_pass for c in cases)),
        originals,
        scorer.replies,
    )
