"""Estimates with an interval, or the reason there is none; and PPI++ for a mean.

An estimate is evaluated (a value and a 95% interval) or not (a reason, never a number).
Intervals are cut at the bounds of what is measured (0 and 1 for a rate, the score scale
for a score), and the note says when.

Prediction-powered inference (PPI++) estimates a mean from a judge's values on every case
and a person's on some. It is the people's mean, moved by lambda times how far the judge's
mean on the unlabelled cases lies from its mean on the labelled ones: if the judge errs the
same way on both, that error cancels. Lambda is chosen from the data to make the interval
narrowest; 0 gives the people's mean alone, 1 plain PPI. Its interval is normal: the gap
person - lambda * judge varies over n labelled cases, the judge over m unlabelled ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist

import numpy as np

from stages.s09_calibration.stats import LEVEL

Interval = tuple[float, float]
RATE = (0.0, 1.0)  # the bounds of a pass rate
# A normal interval rests on the central limit theorem; over fewer values it claims more
# than it knows (Wilson's interval, for a rate, holds up at any count)
MIN_NORMAL = 10
TOO_FEW = f"a normal interval needs at least {MIN_NORMAL}"


@dataclass(frozen=True)
class Estimate:
    """One estimate: its value and interval, or why there is none (`reason`)."""

    method: str
    value: float | None
    ci: Interval | None
    reason: str = ""  # why it is not evaluated; "" when it is
    note: str = ""  # how it was made: lambda, a cut at a bound, the resamples
    error: float | None = None  # its standard error, where the interval is a normal one
    level: float = LEVEL  # the interval's: every interval here is a 95% one

    @property
    def evaluated(self) -> bool:
        return self.value is not None


def not_evaluated(method: str, reason: str) -> Estimate:
    return Estimate(method, None, None, reason)


def z_value(level: float = LEVEL) -> float:
    return NormalDist().inv_cdf((1 + level) / 2)


def wilson(successes: int, n: int, level: float = LEVEL) -> Interval:
    """Wilson's score interval for a share: inside [0, 1] by construction, and it never has
    zero width, even at 0 of n or n of n. Needs n > 0."""
    z, share = z_value(level), successes / n
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * (share * (1 - share) / n + z * z / (4 * n * n)) ** 0.5
    low = 0.0 if successes == 0 else max(0.0, centre - half)  # exact at the ends, where
    high = 1.0 if successes == n else min(1.0, centre + half)  # rounding would miss them
    return low, high


@dataclass(frozen=True)
class Moments:
    """Sums that a mean, a variance and a covariance are read from: y the person, f the judge."""

    n: int
    y: float = 0.0
    f: float = 0.0
    yy: float = 0.0
    ff: float = 0.0
    yf: float = 0.0

    @classmethod
    def of(cls, people: Sequence[float], judge: Sequence[float]) -> Moments:
        y, f = np.asarray(people, dtype=float), np.asarray(judge, dtype=float)
        if y.size != f.size:
            raise ValueError(f"needs paired values, got {y.size} and {f.size}")
        return cls(y.size, float(y.sum()), float(f.sum()), float(y @ y), float(f @ f), float(y @ f))

    @classmethod
    def judged(cls, values: Sequence[float]) -> Moments:
        """The judge's values on cases no person labelled."""
        f = np.asarray(values, dtype=float)
        return cls(f.size, f=float(f.sum()), ff=float(f @ f))

    def var(self, a: float, aa: float) -> float:
        return max(0.0, aa / self.n - (a / self.n) ** 2)  # population variance, never < 0


def prediction_powered(
    labelled: Moments, unlabelled: Moments, bounds: Interval = RATE, level: float = LEVEL
) -> Estimate:
    """PPI++ for a mean. `labelled` holds person and judge on the same cases; `unlabelled`
    holds the judge alone (its y sums unused). With no unlabelled case lambda is 0."""
    method = "prediction-powered"
    n, m = labelled.n, unlabelled.n
    if n < MIN_NORMAL:
        return not_evaluated(method, f"{n} human label{'s' * (n != 1)}: {TOO_FEW}")
    # 1) lambda: the covariance of person and judge on the labelled cases, over the judge's
    #    variance on every case, shrunk by (1 + n/m); kept in [0, 1] as PPI++ does
    cov = labelled.yf / n - (labelled.y / n) * (labelled.f / n)
    every = Moments(n + m, f=labelled.f + unlabelled.f, ff=labelled.ff + unlabelled.ff)
    spread = every.var(every.f, every.ff)
    lam = 0.0 if m == 0 or spread == 0 else min(1.0, max(0.0, cov / ((1 + n / m) * spread)))
    # 2) the estimate: the people's mean, moved by lambda times how far the judge's mean on
    #    the unlabelled cases lies from its mean on the labelled ones
    shift = lam * (unlabelled.f / m - labelled.f / n) if m else 0.0
    value = labelled.y / n + shift
    # 3) its standard error: the gap person - lambda * judge on n cases, the judge on m
    gap = labelled.var(labelled.y, labelled.yy) + lam * lam * labelled.var(labelled.f, labelled.ff)
    gap -= 2 * lam * cov
    judge = lam * lam * unlabelled.var(unlabelled.f, unlabelled.ff) / m if m else 0.0
    error = (max(0.0, gap) / n + judge) ** 0.5
    if error == 0:
        return not_evaluated(
            method, f"the {n} human labels never vary: a normal interval would have zero width"
        )
    note = f"lambda {lam:.2f}" if m else "lambda 0: every case has a human label"
    if m and spread == 0:
        note = "lambda 0: the judge gave every case the same verdict"
    found = bounded(method, value, error * z_value(level), bounds, note)
    return replace(found, error=error) if found.evaluated else found


def bounded(method: str, value: float, half: float, bounds: Interval, note: str) -> Estimate:
    """value plus and minus half, each end cut at the bounds; the note says when it was. An
    interval wholly past a bound is refused: cut, it would be a point at the bound that
    claims a certainty the data do not have, and the estimate could only get there when
    the labelled cases are not like the rest."""
    low, high = bounds
    if value - half > high or value + half < low:
        return not_evaluated(
            method,
            f"{value:.3f} \u00b1 {half:.3f} lies wholly outside [{low:g}, {high:g}]: the "
            "labelled cases are not like the rest",
        )
    cut = min(high, max(low, value))
    if cut != value or value - half < low or value + half > high:
        note = "; ".join(filter(None, [note, f"cut at [{low:g}, {high:g}]"]))
    return Estimate(method, cut, (max(low, value - half), min(high, value + half)), note=note)


def mean_score(
    people: Sequence[float], judged: Sequence[float], unlabelled: Sequence[float], bounds: Interval
) -> list[Estimate]:
    """Judge only, people only and prediction-powered estimates of a mean score, on a scale
    `bounds`. `people` and `judged` are the labelled cases' two scores, pairwise."""
    everything = [*judged, *unlabelled]
    judge = Moments.of(everything, everything)
    only = _normal("judge only", judge, bounds)
    human = Moments.of(people, people)
    gold = _normal("people only", human, bounds)
    return [
        only,
        gold,
        prediction_powered(Moments.of(people, judged), Moments.judged(unlabelled), bounds),
    ]


def _normal(method: str, m: Moments, bounds: Interval) -> Estimate:
    """A mean with a normal interval; not evaluated below MIN_NORMAL values or with no spread."""
    if m.n < MIN_NORMAL:
        return not_evaluated(method, f"{m.n} scores: {TOO_FEW}")
    error = (m.var(m.y, m.yy) / m.n) ** 0.5
    if error == 0:
        return not_evaluated(method, f"all {m.n} scores are equal: no interval to draw")
    return bounded(method, m.y / m.n, error * z_value(), bounds, "")


def lines(estimates: Sequence[Estimate], indent: str = "  ", sign: str = "") -> list[str]:
    """One line per estimate, aligned: the value and interval and how it was made, or why
    it was not evaluated. `sign` "+" shows the sign of every figure (for a change)."""
    width = max(len(e.method) for e in estimates)
    shown = []
    for e in estimates:
        if e.value is None or e.ci is None:
            shown.append(f"{indent}{e.method:<{width}}  NOT EVALUATED — {e.reason}")
            continue
        figures = f"{e.value:{sign}.3f} [{e.ci[0]:{sign}.3f}, {e.ci[1]:{sign}.3f}]"
        shown.append(f"{indent}{e.method:<{width}}  {figures}" + (f"  {e.note}" if e.note else ""))
    return shown


def heading(what: str, level: float = LEVEL) -> str:
    return f"{what} ({level:.0%} intervals):"
