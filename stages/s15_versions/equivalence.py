"""Equivalence, not the absence of a difference: two one-sided tests (TOST).

A test that finds no difference has not shown there is none: few cases hide a large one. To
show two versions (or two judges) alike, name the largest difference that does not matter,
m, and reject both "lower by m or more" and "higher by m or more", each a one-sided t-test
of the paired differences at 5%: the 90% interval of their mean lies inside (-m, +m).
Differences that never vary are equivalent exactly when they lie inside the margin.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

ALPHA = 0.05  # each one-sided test's level


def t_cdf(t: float, df: float) -> float:
    """Student's t distribution function. Written as t = sqrt(df) tan(a), its density is a
    constant times cos(a) ** (df - 1) on a finite range, which Simpson's rule integrates."""
    top, steps = math.atan(abs(t) / math.sqrt(df)), 2000  # even; its error is below 1e-12
    weights = np.ones(steps + 1)
    weights[1:-1:2], weights[2:-1:2] = 4, 2
    area = top / (3 * steps) * float(weights @ np.cos(np.linspace(0, top, steps + 1)) ** (df - 1))
    scale = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(math.pi)
    return 0.5 + math.copysign(scale * area, t)


@dataclass(frozen=True)
class Equivalence:
    """Two one-sided tests of paired differences (new minus old) against a margin."""

    difference: float  # their mean
    p: float  # the larger of the two one-sided p-values
    n: int  # pairs
    margin: float
    differs: float  # the two-sided p-value of "no difference", which TOST does not read

    @property
    def equivalent(self) -> bool:
        return self.p < ALPHA

    def said(self, what: str) -> str:  # one clause, as a rule prints it
        verdict = "within" if self.equivalent else "not shown within"
        return (
            f"{what} {self.difference:+.2f} over {self.n} pairs, {verdict} ±{self.margin:.2f} "
            f"(p {self.p:.3f})"
        )


def tost(differences: Sequence[float], margin: float) -> Equivalence | None:
    """TOST of paired differences against +-margin; None for fewer than two pairs."""
    n = len(differences)
    if n < 2:
        return None
    mean = float(np.mean(differences))
    error = float(np.std(differences, ddof=1)) / math.sqrt(n)
    if error == 0:  # no spread: inside the margin or not, for certain
        return Equivalence(mean, float(abs(mean) >= margin), n, margin, float(mean == 0))
    above = 1 - t_cdf((mean + margin) / error, n - 1)  # "lower by the margin or more"
    below = t_cdf((mean - margin) / error, n - 1)  # "higher by the margin or more"
    differs = 2 * (1 - t_cdf(abs(mean) / error, n - 1))
    return Equivalence(mean, max(above, below), n, margin, differs)
