"""What a pairwise judge is measured by when each pair was asked in both orders. Verdicts
are held as the output chosen, not the slot, in numpy arrays (a pair an entry): 419 pairs or
a log of a million go through the same code. Each measure has its mirrored half, the control:
the labels read as a judge, which have no slot and no taste.

    consistency   stage 8's finding: any pair whose winner changes with the order.
    first slot    the share of verdicts for the slot shown first; each pair is shown both
                  ways, so a judge of content alone gives it half. Found by the sign test of
                  pairs first-first against second-second. A tie chooses neither slot.
    agreement     right by the label as shown, swapped and in both orders (an unread reply is
                  not right: the denominator is every labelled pair); kappa in each order.
    length        the share of verdicts for the longer output less the share of labels for it:
                  found when its interval excludes zero. Without labels, not evaluated: a
                  taste for length and longer outputs being better look alike (stage 10).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from stages.s08_eval.findings import Evidence, Finding, Outcome, decide
from stages.s09_calibration.measures import Measure, said
from stages.s09_calibration.stats import Interval
from stages.s11_correction.estimates import wilson
from stages.s18_judges_on_record import resampled

ONE, TWO, TIE = 1, 2, 0  # an output chosen (or labelled, or longer), or neither
UNREAD, NOT_ASKED = -1, -2  # a reply that could not be read; an order not asked, no label
ALPHA = 0.05  # the sign test's level
Array = np.ndarray[Any, Any]


@dataclass(frozen=True)
class Judged:
    """One judge's verdicts on a set of pairs; small-int arrays, one entry a pair."""

    shown: Array  # the output it chose with output_1 shown first: ONE, TWO, TIE or UNREAD
    swapped: Array  # ... with output_2 shown first; NOT_ASKED where it was asked once
    label: Array  # the people's label: ONE, TWO, TIE, or NOT_ASKED (unlabelled)
    longer: Array  # the longer output by characters: ONE, TWO, or TIE (equal length)

    @property
    def pairs(self) -> int:
        return int(self.shown.size)

    def both_read(self) -> Array:
        """The pairs asked in both orders whose two replies were both read."""
        return (self.shown >= TIE) & (self.swapped >= TIE)

    def take(self, keep: Array) -> Judged:
        return Judged(self.shown[keep], self.swapped[keep], self.label[keep], self.longer[keep])


def as_judge(label: Array, longer: Array) -> Judged:
    """The control: the people's labels read as a judge's verdicts, the same in both orders."""
    return Judged(label, label, label, longer)


@dataclass(frozen=True)
class Consistency(Measure):
    changed: int  # pairs read in both orders whose winner changed with the order
    share: float | None  # of the pairs read in both orders, the share whose verdict survived
    ci: Interval | None


def consistency(j: Judged) -> Consistency:
    read = j.both_read()
    usable, changed = int(read.sum()), int((j.shown[read] != j.swapped[read]).sum())
    outcome = asked_twice(j, usable, changed > 0)
    verdict = f"{changed} of {usable} verdicts change with the order" if changed else "no change"
    figures = (1 - changed / usable, wilson(usable - changed, usable)) if usable else (None, None)
    return Consistency(outcome, said(outcome, verdict), changed, *figures)


def asked_twice(j: Judged, usable: int, found: bool | None) -> Outcome:
    asked = int((j.swapped != NOT_ASKED).sum())
    if not asked:
        return Outcome(Finding.NOT_EVALUATED, "no pair was asked in both orders", Evidence(0, 0))
    return decide(Evidence(usable, asked), found)


@dataclass(frozen=True)
class FirstSlot(Measure):
    share: float | None  # of the verdicts that chose an output, the share for the slot shown first
    ci: Interval | None
    first_both: int  # pairs that went to the slot shown first in both orders
    second_both: int  # ... to the slot shown second in both orders
    p: float | None  # the sign test of first_both against second_both


def first_slot(j: Judged) -> FirstSlot:
    read = j.take(j.both_read())
    votes = (read.shown > TIE).astype(int) + (read.swapped > TIE)  # a tie chose neither slot
    firsts = (read.shown == ONE).astype(int) + (read.swapped == TWO)  # swapped, 2 is first
    first_both, second_both = (int(((votes == 2) & (firsts == k)).sum()) for k in (2, 0))
    p = resampled.sign_test(first_both, first_both + second_both)
    outcome = asked_twice(j, read.pairs, p is not None and p < ALPHA)
    slot = "first" if first_both > second_both else "second"
    verdict = f"prefers the {slot} slot" if outcome.state == Finding.FOUND else "no preference"
    kind, many = resampled.tally(votes, firsts)
    share = resampled.estimate(many, resampled.ratio(kind[:, 1], kind[:, 0]))
    return FirstSlot(outcome, said(outcome, verdict), *share, first_both, second_both, p)


@dataclass(frozen=True)
class Agreement:
    """Agreement with the people's label in one order, or in both ("both orders")."""

    of: str  # what was set against the label: an order, or (a panel's) a judge
    right: int
    labelled: int  # pairs labelled ONE or TWO: the denominator
    unread: int  # of them, pairs without a verdict: a reply unread (either, for both orders)
    share: float | None  # None when too few were read to say (stage 8's rule), never 0
    ci: Interval | None
    kappa: float | None  # over the labelled pairs it chose an output for; None for both orders
    kappa_ci: Interval | None


def agreement(j: Judged) -> list[Agreement]:
    """Right as shown, as swapped (when asked), and in both orders (when every pair was)."""
    labelled, asked = j.label > TIE, j.swapped != NOT_ASKED
    orders = [("shown", j.shown, j.shown == UNREAD), ("swapped", j.swapped, j.swapped == UNREAD)]
    if not asked.any():
        orders = orders[:1]
    elif asked.all():
        both = np.where(j.shown == j.swapped, j.shown, UNREAD)  # a changed verdict is not right
        orders.append(("both orders", both, (j.shown == UNREAD) | (j.swapped == UNREAD)))
    return [right(name, j.label[labelled], verdict[labelled], unread[labelled])
            for name, verdict, unread in orders]  # fmt: skip


def kappa_of(c: resampled.Counts) -> resampled.Counts:
    """Cohen's kappa from the 2x2 table (label by verdict, ONE then TWO) counted in c."""
    n, (a, b, d, e) = c.sum(axis=1), c.T
    expected = ((a + b) * (a + d) + (d + e) * (b + e)) / n**2
    return np.asarray(((a + e) / n - expected) / (1 - expected))


def right(of: str, label: Array, verdict: Array, unread: Array) -> Agreement:
    n, hits, chosen = int(label.size), int((verdict == label).sum()), verdict > TIE
    table = np.bincount((label[chosen] - 1) * 2 + verdict[chosen] - 1, minlength=4)
    kappa, kappa_ci = (None, None) if of == "both orders" else resampled.estimate(table, kappa_of)
    short = Evidence(n - int(unread.sum()), n).shortfall()  # too few read: no share, not a 0
    share, ci = (hits / n, wilson(hits, n)) if short is None else (None, None)
    return Agreement(of, hits, n, int(unread.sum()), share, ci, kappa, kappa_ci)


@dataclass(frozen=True)
class Length(Measure):
    judge_longer: float | None  # of the verdicts on pairs of unequal length, share for the longer
    ci: Interval | None
    label_longer: float | None  # the labels' share for the longer, weighted as the verdicts are
    gap: float | None  # judge_longer - label_longer: a taste for length beyond the labels
    gap_ci: Interval | None


def length(j: Judged) -> Length:
    fit = (j.longer > TIE) & (j.label > TIE) & (j.shown >= TIE) & (j.swapped != UNREAD)
    kept = j.take(fit)
    votes = (kept.shown > TIE).astype(int) + (kept.swapped > TIE)
    for_longer = (kept.shown == kept.longer).astype(int) + (kept.swapped == kept.longer)
    kind, many = resampled.tally(votes, for_longer, votes * (kept.label == kept.longer))
    judge, label = (resampled.ratio(kind[:, k], kind[:, 0]) for k in (1, 2))
    gap, ci = resampled.estimate(many, lambda c: judge(c) - label(c))
    labelled = int((j.label > TIE).sum())
    found = None if ci is None else bool(ci[0] > 0 or ci[1] < 0)
    outcome = decide(Evidence(kept.pairs, labelled), found, "no verdict chose an output")
    if not labelled:
        why = "no labels: a taste for length cannot be told from longer outputs being better"
        outcome = Outcome(Finding.NOT_EVALUATED, why, outcome.evidence)
    verdict = f"prefers the {'longer' if gap is not None and gap > 0 else 'shorter'} output"
    verdict = verdict if outcome.state == Finding.FOUND else "no taste beyond the labels"
    return Length(outcome, said(outcome, verdict), *resampled.estimate(many, judge),
                  resampled.estimate(many, label)[0], gap, ci)  # fmt: skip
