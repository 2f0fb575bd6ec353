"""The measures of calibration: each looks for one flaw (padded or concise twins that move the
score, a verdict that changes with the order, a preference for one family's style) and returns
a record of what it saw. Every record starts with its outcome (stage 8's findings.py: found,
not found, or not evaluated, with the counts it stood on) and its verdict in words, which is
None when it was not evaluated. A figure that could not be computed is None ("n/a"), never zero.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from stages.s08_eval.findings import Evidence, Finding, Outcome, decide
from stages.s08_eval.levels import PASS_MARK
from stages.s08_eval.position import Swap
from stages.s09_calibration import stats
from stages.s09_calibration.calibration import CalCase, families

Scores = dict[str, float | None]  # a mean score by case id; None when nothing was usable
Words = tuple[str, str, str]  # a twin shift's verdict: twins higher, twins lower, no shift
VERBOSITY = ("longer scores higher", "longer scores lower", "no shift")
CONCISE = ("rewards brevity", "rewards thoroughness by volume", "no shift")


def plain(value: Any) -> Any:
    """A value as JSON holds it: records become objects, tuples become lists, and a dict's
    values are made plain in turn."""
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if is_dataclass(value) and not isinstance(value, type):
        shown = [f for f in fields(value) if f.metadata.get("json", True)]
        return {f.name: plain(getattr(value, f.name)) for f in shown}
    if isinstance(value, (tuple, list)):
        return [plain(item) for item in value]
    return value


@dataclass(frozen=True)
class Measure:
    """What every measure carries: how it ended and on what, and its conclusion in words."""

    outcome: Outcome
    verdict: str | None  # None when not evaluated: no conclusion without data

    @property
    def state(self) -> Finding:
        return self.outcome.state

    def to_json(self) -> dict[str, Any]:
        """The report's JSON object: state and counts, the verdict, then the figures."""
        figures = {f.name: plain(getattr(self, f.name)) for f in fields(self)[2:]}
        return {**self.outcome.fields(), "verdict": self.verdict, **figures}


def said(outcome: Outcome, verdict: str) -> str | None:
    """The verdict, when the measure was evaluated."""
    return None if outcome.state == Finding.NOT_EVALUATED else verdict


@dataclass(frozen=True)
class TwinShift(Measure):
    n: int  # originals whose twin was scored too
    repeats: int  # scorings averaged into each score
    mean_delta: float | None
    ci: stats.Interval | None
    share_higher: float | None  # share of twins that scored above their original
    flips: int  # answers whose pass/fail at the gate the twin changed


def twin_shift(original: Scores, twin: Scores, repeats: int, seed: int, words: Words) -> TwinShift:
    """How twins score against their originals: the shift, its interval (found when it excludes
    zero), flips at the gate. `original`, `twin`: mean scores by case id, None if none usable."""
    pairs = [(original[i], twin[i]) for i in original]
    usable = [(o, t) for o, t in pairs if o is not None and t is not None]
    deltas = [t - o for o, t in usable]
    interval = stats.bootstrap_ci(deltas, seed)
    outcome = decide(Evidence(len(usable), len(pairs)), stats.excludes_zero(interval))
    higher, lower, same = words
    verdict = same
    if outcome.state == Finding.FOUND and interval is not None:
        verdict = higher if interval[0] > 0 else lower
    changed = sum((o >= PASS_MARK) != (t >= PASS_MARK) for o, t in usable)
    figures = (stats.mean(deltas), interval, stats.share_higher(deltas), changed)
    return TwinShift(outcome, said(outcome, verdict), len(usable), repeats, *figures)


@dataclass(frozen=True)
class Pairwise(Measure):
    bullets: int  # usable pairs the bullets answer won in both orders
    prose: int
    tie: int  # a tie in both orders, or a verdict that changed with the order
    pairs: int
    calls: int  # two a pair
    swap_consistency: float | None  # share of usable pairs whose verdict survived the swap


def pairwise(ask: Callable[[str, str, str], Swap], cases: list[CalCase]) -> Pairwise:
    """Each pair of family answers compared in both orders; a verdict must survive the swap.

    A pair whose reply could not be read in either order is unscored: it says nothing and is
    left out. Of the rest, disagreement between the two orders is recorded as a tie (the
    judge preferred a slot, not an answer), and is the flaw this measure looks for.
    """
    won = {"a": 0, "b": 0, "tie": 0}
    consistent = 0
    pairs = families(cases)
    for bullets, prose in pairs:
        swap = ask(bullets.question, bullets.answer, prose.answer)
        if not swap.usable:
            continue
        survived = swap.ab == swap.ba
        consistent += survived
        winner = swap.ab if survived and swap.ab else "tie"
        won[winner] += 1
    usable = sum(won.values())
    outcome = decide(Evidence(usable, len(pairs)), consistent < usable)
    changed = f"prefers a slot: {usable - consistent} of {usable} verdicts change with the order"
    verdict = changed if outcome.state == Finding.FOUND else "every verdict survives the swap"
    share = consistent / usable if usable else None
    counts = (won["a"], won["b"], won["tie"], len(pairs), 2 * len(pairs))
    return Pairwise(outcome, said(outcome, verdict), *counts, share)


@dataclass(frozen=True)
class SelfPreference(Measure):
    pairs: int  # equal pairs with both answers scored
    gap: float | None  # bullets minus prose, at equal length
    ci: stats.Interval | None


def self_preference(cases: list[CalCase], scores: Scores, seed: int) -> SelfPreference:
    """Bullets-minus-prose score gap on pairs people rate equal, controlled for length:
    the intercept of the gap against the length difference."""
    equal = [(b, p) for b, p in families(cases) if b.human_score == p.human_score]
    gaps, length_gaps = [], []
    for bullets, prose in equal:
        first, second = scores[bullets.id], scores[prose.id]
        if first is not None and second is not None:
            gaps.append(first - second)
            length_gaps.append(float(len(bullets.answer) - len(prose.answer)))
    gap, interval = stats.intercept(length_gaps, gaps), stats.intercept_ci(length_gaps, gaps, seed)
    outcome = decide(Evidence(len(gaps), len(equal)), stats.excludes_zero(interval))
    verdict = "no preference for either family's style at equal quality and length"
    if outcome.state == Finding.FOUND and gap is not None:
        favoured = "bullets" if gap > 0 else "prose"
        verdict = (
            f"it scores {favoured} answers {abs(gap):.1f} points higher than equal ones: use a "
            f"judge from another family, or discount its {favoured} scores by {abs(gap):.1f}"
        )
    return SelfPreference(outcome, said(outcome, verdict), len(gaps), gap, interval)
