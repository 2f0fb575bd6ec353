"""The corrected number: a pass rate once the judge's measured errors are counted.

A judge's verdicts on every case, and a person's labels on some of them (drawn like the
rest). Four estimates of the share of cases that truly pass, each with a 95% interval:

    judge only            the judge's pass rate over every case; Wilson interval. What a team
                          reports today: it describes the judge as much as the agent.
    people only           the human pass rate over the labelled cases; Wilson interval.
                          Unbiased, but only as precise as the labels are many.
    Rogan-Gladen          the judge's rate p over every case, corrected with its true-positive
                          and true-negative rates on the labelled cases:
                          (p + TNR - 1) / (TPR + TNR - 1). Interval: a seeded bootstrap that
                          resamples the labelled and the unlabelled cases, each on its own.
    prediction-powered    PPI++ (estimates.py), the same for a rate as for a mean score.

What they assume: the labelled cases are a random sample of the same cases, and, for the
correction, a judge better than chance (TPR + TNR > 1). A rate no case can fall outside: each
estimate is cut at 0 and 1, every bootstrap replicate too, so an interval never leaves [0, 1],
and the record says when the cut was made. Not evaluated, with the reason, and never a
number: no labels; fewer than 10 for a normal interval; labels of one class only (TPR or
TNR cannot be measured, and a normal interval would have zero width); a judge no better
than chance; a bootstrap in which any replicate has no correction (it would otherwise draw
the interval from the lucky ones).

Binary verdicts need only counts (a `Tally`), so the bootstrap draws counts, not rows: a
million cases cost what a hundred do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from stages.s08_eval.findings import Finding
from stages.s09_calibration.stats import LEVEL, RESAMPLES, percentile_interval
from stages.s11_correction.estimates import (
    Estimate,
    Moments,
    not_evaluated,
    prediction_powered,
    wilson,
)

SEED = 16


@dataclass(frozen=True)
class Tally:
    """The counts behind every pass-rate estimate.

    table[h][j]: labelled cases the person labelled h (1 pass) and the judge j. passed of
    unlabelled: the cases nobody labelled, and how many of them the judge passed.
    """

    table: tuple[tuple[int, int], tuple[int, int]]
    passed: int
    unlabelled: int

    @property
    def labelled(self) -> int:
        return sum(map(sum, self.table))

    @property
    def cases(self) -> int:
        return self.labelled + self.unlabelled

    @property
    def judge_passed(self) -> int:
        return self.table[0][1] + self.table[1][1] + self.passed

    def rates(self) -> tuple[float | None, float | None]:
        """(TPR, TNR) on the labelled cases; None where that class has no case."""
        (tn, fp), (fn, tp) = self.table
        return (tp / (tp + fn) if tp + fn else None, tn / (tn + fp) if tn + fp else None)


def tally(judge: Sequence[bool], human: Sequence[bool | None]) -> Tally:
    """Count paired verdicts; a human label of None means that case was not labelled."""
    if len(judge) != len(human):
        raise ValueError(f"needs a label slot per verdict, got {len(judge)} and {len(human)}")
    table = [[0, 0], [0, 0]]
    passed = unlabelled = 0
    for verdict, label in zip(judge, human, strict=True):
        if label is None:
            unlabelled += 1
            passed += bool(verdict)
        else:
            table[int(label)][int(verdict)] += 1
    return Tally(((table[0][0], table[0][1]), (table[1][0], table[1][1])), passed, unlabelled)


def judge_only(t: Tally) -> Estimate:
    if t.cases == 0:
        return not_evaluated("judge only", "no cases")
    return Estimate("judge only", t.judge_passed / t.cases, wilson(t.judge_passed, t.cases))


def people_only(t: Tally) -> Estimate:
    if t.labelled == 0:
        return not_evaluated("people only", "no human labels")
    passes = sum(t.table[1])
    return Estimate("people only", passes / t.labelled, wilson(passes, t.labelled))


def _correct(
    observed: Any, tpr: Any, tnr: Any
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The Rogan-Gladen correction, elementwise: (raw value, defined?)."""
    denominator = np.asarray(tpr + tnr - 1.0, dtype=float)
    defined = denominator > 0
    safe = np.where(defined, denominator, 1.0)
    return (observed + tnr - 1.0) / safe, defined


def every(count: int) -> str:
    return "the one" if count == 1 else f"every one of the {count}"


def rogan_gladen(
    t: Tally, seed: int = SEED, resamples: int = RESAMPLES, level: float = LEVEL
) -> Estimate:
    """The judge's rate over every case, corrected by its error rates on the labelled ones."""
    method = "Rogan-Gladen"
    tpr, tnr = t.rates()
    if t.labelled == 0:
        return not_evaluated(method, "no human labels")
    if tpr is None or tnr is None:
        kind = "pass" if tnr is None else "fail"
        return not_evaluated(
            method,
            f"{every(t.labelled)} human label{'s' * (t.labelled > 1)} is a {kind}: the judge's "
            f"{'true-negative' if tnr is None else 'true-positive'} rate cannot be measured",
        )
    if tpr + tnr <= 1:
        return not_evaluated(
            method,
            f"the judge is no better than chance on the labelled cases: TPR {tpr:.2f} + "
            f"TNR {tnr:.2f} = {tpr + tnr:.2f}, not above 1",
        )
    raw = float(_correct(t.judge_passed / t.cases, tpr, tnr)[0])
    values, undefined = replicates(t, np.random.default_rng(seed), resamples)
    if undefined:
        return not_evaluated(
            method,
            f"too few labels for a stable correction: TPR {tpr:.2f} + TNR {tnr:.2f} - 1 = "
            f"{tpr + tnr - 1:.2f}, and in {undefined} of {resamples} resamples the labels had "
            "one class only or the judge was no better than chance",
        )
    low, high = percentile_interval(np.clip(values, 0.0, 1.0), level)
    note = f"TPR {tpr:.2f}, TNR {tnr:.2f}; {resamples} resamples (seed {seed})"
    if not 0.0 <= raw <= 1.0:
        note += f"; the raw correction {raw:.3f} was cut to the nearest bound"
    return Estimate(method, min(1.0, max(0.0, raw)), (float(low), float(high)), note=note)


def replicates(
    t: Tally, rng: np.random.Generator, resamples: int
) -> tuple[np.ndarray[Any, Any], int]:
    """The correction on `resamples` bootstrap copies of the cases, and how many of them
    had none. A resample of rows only changes the counts in each cell, so the counts are
    drawn directly: the labelled cases' four cells from a multinomial, the unlabelled
    judge passes from a binomial, each stratum keeping its size."""
    (tn, fp), (fn, tp) = t.table
    cells = np.array([tn, fp, fn, tp], dtype=float) / t.labelled
    drawn = rng.multinomial(t.labelled, cells, size=resamples).astype(float)
    share = t.passed / t.unlabelled if t.unlabelled else 0.0
    passed = rng.binomial(t.unlabelled, share, size=resamples).astype(float)
    tn_, fp_, fn_, tp_ = drawn.T
    positives, negatives = tp_ + fn_, tn_ + fp_
    # a resample with one class only gets 0 for the rate it cannot measure; the judge then
    # looks no better than chance (TPR + TNR <= 1), and _correct leaves the resample out
    tpr = np.divide(tp_, positives, out=np.zeros(resamples), where=positives > 0)
    tnr = np.divide(tn_, negatives, out=np.zeros(resamples), where=negatives > 0)
    observed = (fp_ + tp_ + passed) / t.cases
    values, defined = _correct(observed, tpr, tnr)
    return values[defined], int(resamples - defined.sum())


def binary_moments(t: Tally) -> tuple[Moments, Moments]:
    """The labelled and unlabelled moments of 0/1 verdicts, read off the counts."""
    (_, fp), (fn, tp) = t.table
    people, judge = float(fn + tp), float(fp + tp)
    labelled = Moments(t.labelled, people, judge, people, judge, float(tp))
    return labelled, Moments(t.unlabelled, f=float(t.passed), ff=float(t.passed))


def pass_rate(t: Tally, seed: int = SEED, resamples: int = RESAMPLES) -> list[Estimate]:
    """The four estimates of the pass rate, in the order a report shows them."""
    ppi = (
        prediction_powered(*binary_moments(t))
        if t.labelled
        else not_evaluated("prediction-powered", "no human labels")
    )
    return [judge_only(t), people_only(t), rogan_gladen(t, seed, resamples), ppi]


CORRECTIONS = ("Rogan-Gladen", "prediction-powered")


def made(estimates: Sequence[Estimate]) -> bool:
    """Whether either correction gave a number (of a rate, or of a change in one)."""
    return any(e.evaluated for e in estimates if e.method in CORRECTIONS)


def corrected(t: Tally, estimates: Sequence[Estimate]) -> dict[str, Any]:
    """The pass rate four ways (`pass_rate(t)`) as JSON; not evaluated when neither
    correction could be made."""
    reasons = "; ".join(f"{e.method}: {e.reason}" for e in estimates[1:] if not e.evaluated)
    return {
        "state": "evaluated" if made(estimates) else str(Finding.NOT_EVALUATED),
        "reason": "" if made(estimates) else reasons,
        "labelled": t.labelled,
        "unlabelled": t.unlabelled,
        "estimates": [vars(e) for e in estimates],
    }
