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

PSI sees only how many scores fall in each bin, so a deal is drawn from the bin counts, not
score by score (dealt()): the first window's counts are a draw without replacement from the
pooled counts (multivariate hypergeometric), the second window gets the rest. A deal then
costs the same for windows of ten scores or ten million.
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
    bins); each row of a table of counts on its own. No scores give every bin the same share."""
    padded = binned + SMOOTHING
    shared: np.ndarray[Any, Any] = padded / padded.sum(axis=-1, keepdims=True)
    return shared


def shares(scores: Sequence[float], edges: Sequence[float]) -> tuple[float, ...]:
    """The smoothed share of the scores in each bin; no bins give ()."""
    return tuple(float(share) for share in smoothed(counts(scores, edges))) if edges else ()


def index(first: np.ndarray[Any, Any], second: np.ndarray[Any, Any]) -> Any:
    """The PSI of two windows' bin counts, or of each row of two tables of them. With ln q -
    ln p, not ln(q / p), swapping the windows negates both factors of each term exactly:
    symmetric to the bit."""
    p, q = smoothed(first), smoothed(second)
    return np.sum((q - p) * (np.log(q) - np.log(p)), axis=-1)


def psi(before: Sequence[float], after: Sequence[float], edges: Sequence[float]) -> float:
    """The PSI of two windows' scores over the same bins."""
    return float(index(counts(before, edges), counts(after, edges))) if edges else 0.0


def by_chance(
    before: Sequence[float],
    after: Sequence[float],
    edges: Sequence[float],
    seed: int = SEED,
    deals: int = DEALS,
) -> float:
    """The permutation p-value of the PSI of two windows' scores (dealt())."""
    return dealt(counts(before, edges), counts(after, edges), seed, deals)


def dealt(
    first: np.ndarray[Any, Any], second: np.ndarray[Any, Any], seed: int = SEED, deals: int = DEALS
) -> float:
    """The permutation p-value of two windows' bin counts: (1 + deals at least as far apart)
    / (1 + deals), never 0, since the observed deal is one of the possible ones. Seeded.

    "marginals" draws each bin's count in turn (a univariate hypergeometric draw apiece), at
    a cost that grows with the bins, not the scores ("count" would lay out every score); it
    asks for fewer than 10**9 scores in the two windows together.
    """
    pooled, size = first + second, int(first.sum())
    rng = np.random.default_rng(seed)
    # 1) every deal's first window at once: one row of bin counts per deal, without replacement
    drawn = rng.multivariate_hypergeometric(pooled, size, size=deals, method="marginals")
    # 2) the second window holds the rest; count the deals at least as far apart as observed
    far = index(drawn, pooled - drawn) >= index(first, second) - 1e-12
    return (1 + int(far.sum())) / (1 + deals)


def reading(value: float) -> str:
    if value > MAJOR:
        return "a major shift"
    return "a moderate shift" if value >= MODERATE else "stable"
