"""Cohen's kappa: agreement beyond chance between two raters' pass/fail labels, and its interval.

Two raters who both pass nine answers in ten agree on most of them by chance alone; kappa
counts only the agreement beyond that. None means "not defined here", never zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from stages.s09_calibration.stats import RESAMPLES, percentile_interval

TRUSTWORTHY = 0.6  # kappa at or above this: agreement well beyond chance ("substantial")
SEED = 9  # the bootstrap's, as stage 9's


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


def kappa_interval(
    people: list[bool], judge: list[bool], seed: int = SEED, resamples: int = RESAMPLES
) -> tuple[float, float] | None:
    """A percentile bootstrap interval for kappa, the cases resampled with replacement.

    A resample in which either side used one label only has no kappa and is left out; when
    more than half are left out the interval is not defined (None): the cases are too few,
    or too alike, to say how far kappa could move.
    """
    if not people:
        return None
    rng, n = np.random.default_rng(seed), len(people)
    drawn = [rng.integers(0, n, n) for _ in range(resamples)]
    kappas = [cohen_kappa([people[i] for i in d], [judge[i] for i in d]).kappa for d in drawn]
    defined = [k for k in kappas if k is not None]
    if len(defined) < resamples / 2:
        return None
    return percentile_interval(defined)
