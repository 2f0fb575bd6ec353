"""The statistics of calibration, as small pure functions over plain sequences.

Each says what it returns on degenerate input (nothing to measure, one label only, no
variance) instead of crashing or inventing a number: None means "not defined here".
Randomness only through an explicit seed. NumPy does the arithmetic, so that an interval
over ten thousand deltas takes well under a second.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

RESAMPLES = 2000
LEVEL = 0.95
Interval = tuple[float, float]  # (low, high)


def mean(values: Sequence[float]) -> float | None:
    """The arithmetic mean; None for no values."""
    return float(np.mean(values)) if len(values) else None


def share_higher(deltas: Sequence[float]) -> float | None:
    """The share of deltas above zero; None for no deltas."""
    return float(np.mean(np.asarray(deltas) > 0)) if len(deltas) else None


def bootstrap_ci(
    values: Sequence[float], seed: int, resamples: int = RESAMPLES, level: float = LEVEL
) -> Interval | None:
    """A percentile bootstrap interval for the mean; None for no values.

    1) draw `resamples` samples of len(values) with replacement (seeded);
    2) take each sample's mean;
    3) the interval runs between the (1 - level) / 2 and (1 + level) / 2 quantiles.
    One value gives the interval [value, value]: there is nothing to vary.
    """
    if not len(values):
        return None
    return percentile_interval(bootstrap_means(values, seed, resamples), level)


def percentile_interval(
    replicates: Sequence[float] | np.ndarray[Any, Any], level: float = LEVEL
) -> Interval:
    """The middle `level` of bootstrap replicates: from their (1 - level) / 2 quantile to
    their (1 + level) / 2 one. Needs at least one replicate."""
    tail = (1 - level) / 2
    low, high = np.quantile(np.asarray(replicates, dtype=float), [tail, 1 - tail])
    return float(low), float(high)


def bootstrap_means(values: Sequence[float], seed: int, resamples: int) -> np.ndarray[Any, Any]:
    """The means of `resamples` resamples with replacement (seeded), in chunks to bound memory."""
    data, rng = np.asarray(values, dtype=float), np.random.default_rng(seed)
    means = np.empty(resamples)
    chunk = max(1, 2_000_000 // max(1, data.size))
    for start in range(0, resamples, chunk):
        stop = min(resamples, start + chunk)
        picks = rng.integers(0, data.size, size=(stop - start, data.size))
        means[start:stop] = data[picks].mean(axis=1)
    return means


def excludes_zero(interval: Interval | None) -> bool:
    """True when the interval lies wholly above or wholly below zero."""
    return interval is not None and (interval[0] > 0 or interval[1] < 0)


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


def intercept_ci(x: Sequence[float], y: Sequence[float], seed: int) -> Interval | None:
    """A percentile bootstrap interval for `intercept`, resampling (x, y) pairs together."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.size == 0:
        return None
    picks = np.random.default_rng(seed).integers(0, a.size, size=(RESAMPLES, a.size))
    estimates = [intercept(a[p].tolist(), b[p].tolist()) for p in picks]
    return percentile_interval([e for e in estimates if e is not None])
