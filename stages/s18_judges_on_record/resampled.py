"""A bootstrap drawn as counts, and the sign test: the statistics every figure here stands on.

Each figure of this stage depends on its pairs only through how many pairs fall in each kind
(say, two verdicts of which both chose the slot shown first). Resampling n pairs with
replacement then draws those counts from a multinomial with the observed shares: the same
bootstrap as drawing rows, at a cost that does not grow with the pairs (as stage 11 draws).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from stages.s09_calibration.stats import LEVEL, RESAMPLES, Interval, percentile_interval

SEED = 18
Counts = np.ndarray[Any, Any]  # how many pairs fall in each kind; a row a resample
Statistic = Callable[[Counts], Counts]  # (resamples, kinds) -> (resamples,); NaN: undefined


def tally(*columns: Counts) -> tuple[Counts, Counts]:
    """The kinds of pair, by the values of `columns` (a value a pair each), as rows, and how
    many pairs are of each kind."""
    if not columns[0].size:
        return np.zeros((0, len(columns)), dtype=np.int64), np.zeros(0, dtype=np.int64)
    kinds, many = np.unique(np.stack(columns, axis=1), axis=0, return_counts=True)
    return kinds, many


def ratio(top: Counts, bottom: Counts) -> Statistic:
    """The statistic sum(top) / sum(bottom) over the pairs, from their counts by kind."""
    return lambda c: (c @ top) / (c @ bottom)


def estimate(counts: Counts, statistic: Statistic) -> tuple[float | None, Interval | None]:
    """The statistic on the counts observed (None where it is not defined), and its interval."""
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(np.asarray(statistic(np.asarray(counts, dtype=float)[None, :]))[0])
    return (value if math.isfinite(value) else None), interval(counts, statistic)


def interval(
    counts: Counts, statistic: Statistic, seed: int = SEED, resamples: int = RESAMPLES
) -> Interval | None:
    """A percentile interval for `statistic` over pairs counted by kind in `counts`:
    1) draw `resamples` tallies of the n pairs from the observed shares (seeded);
    2) compute the statistic on each, NaN where it is not defined;
    3) keep the middle LEVEL of those defined. None when there are no pairs, or when more
       than half the resamples leave it undefined: too few pairs to say how far it moves."""
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    if n == 0:
        return None
    drawn = np.random.default_rng(seed).multinomial(n, counts / n, size=resamples)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.asarray(statistic(drawn), dtype=float)
    defined = values[np.isfinite(values)]
    return percentile_interval(defined, LEVEL) if defined.size >= resamples / 2 else None


def sign_test(k: int, n: int) -> float | None:
    """The two-sided exact sign test of k of n against a fair coin: min(1, 2 P(X <= min(k,
    n - k))), X ~ Binomial(n, 1/2), summed in logs so that a million neither overflows nor
    takes long. None for n == 0: nothing to test."""
    if n == 0:
        return None
    terms = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
             for i in range(min(k, n - k) + 1)]  # fmt: skip
    top = max(terms)
    tail = math.exp(top + n * math.log(0.5)) * sum(math.exp(t - top) for t in terms)
    return min(1.0, 2 * tail)
