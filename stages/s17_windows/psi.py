"""The population stability index between two windows of scores, and how often chance alone
puts two windows that far apart.

    PSI = sum over the bins of (q - p) * ln(q / p)

p and q are the earlier and the later window's share of scores in each bin: the
Kullback-Leibler divergence taken both ways and added, so symmetric and never negative. By
convention below 0.1 reads as stable, 0.1 to 0.25 as a moderate shift, above 0.25 as a major
one. It assumes both windows are cut into the same bins, and independent scores. An empty
bin would make ln(q / p) infinite, so every bin's count gets half a score before the shares
are taken (shares()): PSI stays finite, and equal counts still give exactly 0.

The convention ignores the windows' size, and small windows differ by chance: two windows of
50 scores drawn from one distribution over 9 bins are often more than 0.25 apart. So each
PSI comes with a permutation test (by_chance()): the pooled scores are dealt into two
windows of the same sizes again and again, and the p-value is the share of deals whose PSI
is at least the one observed. Under "both windows were drawn alike" it is exact, whatever the
bins and the sizes; it still assumes the scores within a window are independent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

MODERATE = 0.1  # PSI from here up to MAJOR: a moderate shift
MAJOR = 0.25  # PSI above this: a major shift (a finding, if chance rarely reaches it)
SMOOTHING = 0.5  # added to every bin's count, so that no share is zero
ALPHA = 0.05  # a p-value below this: chance rarely puts windows of these sizes this far apart
DEALS = 2000  # permutations the p-value is counted over
SEED = 11


def counts(scores: Sequence[float], edges: Sequence[float]) -> np.ndarray[Any, Any]:
    """How many scores fall in each bin. A bin holds the scores from its edge up to the next
    one's; a score below the first edge counts in the first."""
    found = np.searchsorted(edges, np.asarray(scores, dtype=float), side="right") - 1
    return np.bincount(np.clip(found, 0, None), minlength=len(edges))


def smoothed(binned: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Bin counts as shares, each count given half a score first: (count + 0.5) / (n + 0.5 *
    bins). No scores give every bin the same share."""
    padded = binned + SMOOTHING
    shared: np.ndarray[Any, Any] = padded / padded.sum()
    return shared


def shares(scores: Sequence[float], edges: Sequence[float]) -> tuple[float, ...]:
    """The smoothed share of the scores in each bin; no bins give ()."""
    return tuple(float(share) for share in smoothed(counts(scores, edges))) if edges else ()


def index(first: np.ndarray[Any, Any], second: np.ndarray[Any, Any]) -> float:
    """The PSI of two windows' bin counts. With ln q - ln p, not ln(q / p), swapping the
    windows negates both factors of each term exactly: symmetric to the bit."""
    p, q = smoothed(first), smoothed(second)
    return float(np.sum((q - p) * (np.log(q) - np.log(p))))


def psi(before: Sequence[float], after: Sequence[float], edges: Sequence[float]) -> float:
    """The PSI of two windows' scores over the same bins."""
    return index(counts(before, edges), counts(after, edges)) if edges else 0.0


def by_chance(
    before: Sequence[float],
    after: Sequence[float],
    edges: Sequence[float],
    seed: int = SEED,
    deals: int = DEALS,
) -> float:
    """The permutation p-value of the PSI: (1 + deals at least as far apart) / (1 + deals),
    never 0, since the observed deal is one of the possible ones. Seeded."""
    observed = psi(before, after, edges)
    pooled = np.concatenate([np.asarray(before, float), np.asarray(after, float)])
    binned = np.clip(np.searchsorted(edges, pooled, side="right") - 1, 0, None)
    rng, cut, size = np.random.default_rng(seed), len(before), len(edges)
    hits = 0
    for _ in range(deals):
        dealt = rng.permutation(binned)
        first = np.bincount(dealt[:cut], minlength=size)
        hits += index(first, np.bincount(dealt[cut:], minlength=size)) >= observed - 1e-12
    return (1 + hits) / (1 + deals)


def reading(value: float) -> str:
    if value > MAJOR:
        return "a major shift"
    return "a moderate shift" if value >= MODERATE else "stable"
