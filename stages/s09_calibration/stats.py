"""The statistics of calibration, as small pure functions over plain sequences.

Each says what it returns on degenerate input (nothing to measure, one label only, no
variance) instead of crashing or inventing a number: None means "not defined here".
Randomness only through an explicit seed. NumPy does the arithmetic, so that an interval
over ten thousand deltas, or a correlation over a million rows, takes well under a second.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

RESAMPLES = 2000
LEVEL = 0.95
TRUSTWORTHY = 0.6  # kappa at or above this: agreement well beyond chance ("substantial")


def mean(values: Sequence[float]) -> float | None:
    """The arithmetic mean; None for no values."""
    return float(np.mean(values)) if len(values) else None


def share_higher(deltas: Sequence[float]) -> float | None:
    """The share of deltas above zero; None for no deltas."""
    return float(np.mean(np.asarray(deltas) > 0)) if len(deltas) else None


def flips(before: Sequence[bool], after: Sequence[bool]) -> int:
    """How many verdicts at the gate changed between two scorings of the same cases."""
    if len(before) != len(after):
        raise ValueError(f"flips needs paired verdicts, got {len(before)} and {len(after)}")
    return sum(b != a for b, a in zip(before, after, strict=True))


def bootstrap_ci(
    values: Sequence[float], seed: int, resamples: int = RESAMPLES, level: float = LEVEL
) -> tuple[float, float] | None:
    """A percentile bootstrap interval for the mean; None for no values.

    1) draw `resamples` samples of len(values) with replacement (seeded);
    2) take each sample's mean;
    3) the interval runs between the (1 - level) / 2 and (1 + level) / 2 quantiles.
    One value gives the interval [value, value]: there is nothing to vary.
    """
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return None
    rng = np.random.default_rng(seed)
    return percentile_interval(bootstrap_means(data, rng, resamples), level)


def percentile_interval(
    replicates: Sequence[float] | np.ndarray[Any, Any], level: float = LEVEL
) -> tuple[float, float]:
    """The middle `level` of bootstrap replicates: from their (1 - level) / 2 quantile to
    their (1 + level) / 2 one. Needs at least one replicate."""
    tail = (1 - level) / 2
    low, high = np.quantile(np.asarray(replicates, dtype=float), [tail, 1 - tail])
    return float(low), float(high)


def bootstrap_means(
    data: np.ndarray[Any, Any], rng: np.random.Generator, resamples: int
) -> np.ndarray[Any, Any]:
    """The means of `resamples` resamples with replacement, in chunks to bound memory."""
    means = np.empty(resamples)
    chunk = max(1, 2_000_000 // max(1, data.size))
    for start in range(0, resamples, chunk):
        stop = min(resamples, start + chunk)
        picks = rng.integers(0, data.size, size=(stop - start, data.size))
        means[start:stop] = data[picks].mean(axis=1)
    return means


def excludes_zero(interval: tuple[float, float] | None) -> bool:
    """True when the interval lies wholly above or wholly below zero."""
    return interval is not None and (interval[0] > 0 or interval[1] < 0)


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson's r; None for fewer than two pairs or when either side has no variance."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.size != b.size:
        raise ValueError(f"pearson needs paired values, got {a.size} and {b.size}")
    if a.size < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return None
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
class Agreement:
    """Cohen's kappa with its parts. None where a part is not defined."""

    kappa: float | None
    observed: float | None  # share of cases where both say the same
    expected: float | None  # share they would agree on by chance, from their base rates
    n: int


def cohen_kappa(first: Sequence[bool], second: Sequence[bool]) -> Agreement:
    """Agreement beyond chance between two raters' pass/fail labels.

    kappa = (observed - expected) / (1 - expected). No cases: every part None. When both
    raters use one and the same label throughout, expected is 1 and kappa is undefined
    (None): they agree, but not in a way that says anything about the raters.
    """
    if len(first) != len(second):
        raise ValueError(f"kappa needs paired labels, got {len(first)} and {len(second)}")
    table = [[0, 0], [0, 0]]
    for a, b in zip(first, second, strict=True):
        table[int(bool(a))][int(bool(b))] += 1
    return kappa_from_table(table)


def kappa_from_table(table: Sequence[Sequence[int]]) -> Agreement:
    """Cohen's kappa from a 2x2 table of counts: rows the first rater, columns the second."""
    counts = np.asarray(table, dtype=float)
    n = int(counts.sum())
    if n == 0:
        return Agreement(None, None, None, 0)
    observed = float(np.trace(counts)) / n
    expected = float(counts.sum(axis=1) @ counts.sum(axis=0)) / n**2
    kappa = None if expected == 1 else (observed - expected) / (1 - expected)
    return Agreement(kappa, observed, expected, n)


def intercept(x: Sequence[float], y: Sequence[float]) -> float | None:
    """The least-squares line's value at x = 0; the mean of y when x does not vary.

    Used to compare two groups "at equal length": y is a score gap, x a length gap.
    """
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.size == 0:
        return None
    if np.ptp(a) == 0:
        return float(b.mean())
    slope = float(((a - a.mean()) @ (b - b.mean())) / ((a - a.mean()) @ (a - a.mean())))
    return float(b.mean() - slope * a.mean())


def intercept_ci(
    x: Sequence[float], y: Sequence[float], seed: int, resamples: int = RESAMPLES
) -> tuple[float, float] | None:
    """A percentile bootstrap interval for `intercept`, resampling (x, y) pairs together."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.size == 0:
        return None
    rng = np.random.default_rng(seed)
    estimates = [
        intercept(a[picks].tolist(), b[picks].tolist())
        for picks in rng.integers(0, a.size, size=(resamples, a.size))
    ]
    return percentile_interval([e for e in estimates if e is not None])
