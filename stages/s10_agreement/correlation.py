"""Does the score follow the length? Spearman's rho with its interval, beside Pearson's r.

A correlation is not a bias: over a set whose long answers are also its wrong ones, a judge
that scores content alone still scores the long answers lower. Only twins (stage 9) hold the
content still while the length moves. None means "not defined here", never zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from stages.s08_eval.findings import Evidence, Finding, decide
from stages.s09_calibration.measures import Measure, said
from stages.s09_calibration.stats import LEVEL, Interval, excludes_zero

UNDEFINED_RHO = "the correlation is undefined: fewer than 4 points, or lengths that never vary"


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson's r; None for fewer than two pairs or when either side has no variance."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.size != b.size:
        raise ValueError(f"pearson needs paired values, got {a.size} and {b.size}")
    if a.size < 2 or a.min() == a.max() or b.min() == b.max():
        return None
    a, b = a / np.abs(a).max(), b / np.abs(b).max()  # r ignores scale; 1e308 would overflow
    a, b = a - a.mean(), b - b.mean()
    spread = float(np.sqrt((a @ a) * (b @ b)))
    return float((a @ b) / spread) if spread > 0 else None  # 0: variance lost to underflow


def ranks(values: Sequence[float]) -> np.ndarray[Any, Any]:
    """Ranks from 1, ties sharing the mean of the ranks they span."""
    data = np.asarray(values, dtype=float)
    order = np.argsort(data, kind="stable")
    sorted_values = data[order]
    # the first position of each run of equal values, and where each run ends
    starts = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])
    ends = np.r_[starts[1:], data.size]
    run_rank = (starts + ends + 1) / 2  # mean of 1-based ranks starts+1 .. ends
    result = np.empty(data.size)
    result[order] = np.repeat(run_rank, ends - starts)
    return result


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho: Pearson's r of the ranks; None where Pearson's would be."""
    if len(x) != len(y):
        raise ValueError(f"spearman needs paired values, got {len(x)} and {len(y)}")
    if len(x) < 2:
        return None
    return pearson(ranks(x).tolist(), ranks(y).tolist())


def correlation_ci(r: float | None, n: int, level: float = LEVEL) -> tuple[float, float] | None:
    """An approximate interval for Spearman's rho over n pairs; None when rho is undefined
    or n < 4.

    Fisher's z: atanh(rho) is close to normal with variance 1.06 / (n - 3), a standard
    error of sqrt(1.06 / (n - 3)) (Fieller, Hartley and Pearson's figure for rank
    correlations, where Pearson's r has 1 / (n - 3)); the interval is z plus
    and minus its normal quantile, turned back with tanh. A rho of exactly +1 or -1 gives an
    interval that touches it.
    """
    if r is None or n < 4:
        return None
    z = float(np.arctanh(np.clip(r, -1 + 1e-12, 1 - 1e-12)))
    half = NormalDist().inv_cdf((1 + level) / 2) * (1.06 / (n - 3)) ** 0.5
    return float(np.tanh(z - half)), float(np.tanh(z + half))


@dataclass(frozen=True)
class LengthConfound(Measure):
    spearman: float | None
    ci: Interval | None  # Fisher's z, approximate
    pearson: float | None


def length_confound(
    lengths: Sequence[float], scores: Sequence[float], evidence: Evidence
) -> LengthConfound:
    """Does the score follow the length? Spearman's rho with its interval, and Pearson's r.

    Over a set whose long answers are also its wrong ones this mixes length with quality:
    only twins separate the two.
    """
    rho = spearman(lengths, scores)
    interval = correlation_ci(rho, len(scores))
    if len(set(scores)) == 1 and len(set(lengths)) > 1:
        # one score for every length: no correlation is defined, and none is needed
        outcome = decide(evidence, False)
        verdict = "the score never varies, so it cannot follow the length"
    else:
        found = None if interval is None else excludes_zero(interval)
        outcome = decide(evidence, found, UNDEFINED_RHO)
        verdict = "the score does not follow the length"
    if outcome.state == Finding.FOUND and interval is not None:
        verdict = f"longer answers score {'higher' if interval[0] > 0 else 'lower'}"
    rho_r = pearson(lengths, scores)
    return LengthConfound(outcome, said(outcome, verdict), rho, interval, rho_r)
