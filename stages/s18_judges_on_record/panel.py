"""A panel of judges: what six instruments that err together buy over the best of them.

A judge's vote on a pair is its verdict when it survived the swap; otherwise (or unread) it
casts none. The panel's verdict is the output most votes chose; an even split, or no vote,
is no majority, and not right: the denominator is every pair. Beside the panel's accuracy,
the best judge's and the others', McNemar's test (the sign test of the pairs one of panel
and best judge got right and the other did not); the mean correlation r of the judges'
errors (no vote is an error), which makes k judges worth k / (1 + (k - 1) r) independent
votes; and Krippendorff's alpha among the judges, and with the experts' label.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from stages.s09_calibration.stats import Interval
from stages.s18_judges_on_record import resampled
from stages.s18_judges_on_record.measures import ONE, TIE, TWO, Agreement, Judged, right

Array = np.ndarray[Any, Any]


def votes(j: Judged) -> Array:
    """A judge's vote on each pair: the output chosen in both orders, else TIE (no vote)."""
    return np.where((j.shown == j.swapped) & (j.shown > TIE), j.shown, TIE)


@dataclass(frozen=True)
class Panel:
    judges: tuple[str, ...]
    abstained: int  # votes not cast: a verdict that changed with the order, or unread
    no_majority: int  # pairs the votes split evenly on, or that got no vote
    panel: Agreement  # right by the label (its kappa too)
    best: Agreement  # the single judge with the most pairs right in both orders
    others: Agreement  # the panel of the other judges, without the best
    p: float | None  # McNemar's test, panel against the best judge
    correlation: float | None  # the judges' errors, the mean over every pair of judges
    effective: float | None  # independent votes the judges are worth
    alpha: tuple[float | None, Interval | None]  # Krippendorff's among the judges, its interval
    alpha_with_label: tuple[float | None, Interval | None]  # ... among them and the experts


def panel(judged: dict[str, Judged], label: Array) -> Panel:
    names = tuple(judged)
    cast = np.array([votes(judged[name]) for name in names])  # judges x pairs
    verdict = majority(cast)
    best = max((accuracy(name, row, label) for name, row in zip(names, cast, strict=True)),
               key=lambda a: a.right)  # fmt: skip
    others = majority(np.delete(cast, names.index(best.of), axis=0))
    best_right, panel_right = cast[names.index(best.of)] == label, verdict == label
    only_panel, only_best = (
        int((x & ~y).sum()) for x, y in ((panel_right, best_right), (best_right, panel_right))
    )
    r, k = error_correlation(cast, label), len(names)
    effective = None if r is None or 1 + (k - 1) * r <= 0 else k / (1 + (k - 1) * r)
    ones, twos = (cast == ONE).sum(axis=0), (cast == TWO).sum(axis=0)
    with_label = np.stack([ones + (label == ONE), twos + (label == TWO)], axis=1)
    return Panel(names, int((cast == TIE).sum()), int((verdict == TIE).sum()),
                 accuracy("panel", verdict, label), best, accuracy("the others", others, label),
                 resampled.sign_test(only_panel, only_panel + only_best), r, effective,
                 alpha(np.stack([ones, twos], axis=1)), alpha(with_label))  # fmt: skip


def accuracy(who: str, verdict: Array, label: Array) -> Agreement:
    """Right by the label, over every pair: no vote, or no majority, is not right."""
    return right(who, label, verdict, verdict == TIE)


def majority(cast: Array) -> Array:
    """The output most votes chose, pair by pair; TIE on an even split or no vote."""
    ones, twos = (cast == ONE).sum(axis=0), (cast == TWO).sum(axis=0)
    return np.where(ones > twos, ONE, np.where(twos > ones, TWO, TIE))


def error_correlation(cast: Array, label: Array) -> float | None:
    """The mean correlation of the judges' errors over every pair of judges; None when no
    pair of judges has errors that vary (a judge always right, or always wrong)."""
    errors = (cast != label).astype(float)
    varied = [e for e in errors if e.std() > 0]
    found = [float(np.corrcoef(a, b)[0, 1]) for a, b in combinations(varied, 2)]
    return float(np.mean(found)) if found else None


def alpha(counts: Array) -> tuple[float | None, Interval | None]:
    """Krippendorff's alpha, nominal, and its interval; `counts` a row a pair, how many coders
    gave each value. Pairs with fewer than two values are not pairable. A pair with m values,
    n_c of them c, holds (m^2 - sum n_c^2) / (m - 1) disagreements; chance, from the totals
    N_c of the pairable values (N in all), (N^2 - sum N_c^2) / (N - 1); alpha = 1 - observed
    / expected. None when no pair is pairable, or every value is the same.
    """
    kind, many = resampled.tally(*np.asarray(counts).T)
    m = kind.sum(axis=1).astype(float)
    pairable = m >= 2
    within = np.where(pairable, (m**2 - (kind**2).sum(axis=1)) / np.maximum(m - 1, 1), 0)

    def statistic(c: resampled.Counts) -> resampled.Counts:
        totals = c @ (kind * pairable[:, None])
        n = totals.sum(axis=1)
        return np.asarray(1 - (c @ within) / ((n**2 - (totals**2).sum(axis=1)) / (n - 1)))

    return resampled.estimate(many, statistic)
