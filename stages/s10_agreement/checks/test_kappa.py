"""Kappa and its interval, each checked against an independent implementation or a hand value."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from stages.s10_agreement.kappa import (
    cohen_kappa,
    kappa_interval,
)


def test_kappa_by_hand():
    # 10 cases: both pass 4, both fail 3, human pass/judge fail 2, human fail/judge pass 1
    human = [True] * 6 + [False] * 4
    judge = [True] * 4 + [False] * 2 + [True] + [False] * 3
    agreement = cohen_kappa(human, judge)
    # observed (4 + 3) / 10 = 0.7; expected 0.6 * 0.5 + 0.4 * 0.5 = 0.5; kappa 0.2 / 0.5
    assert agreement.observed == pytest.approx(0.7)
    assert agreement.expected == pytest.approx(0.5)
    assert agreement.kappa == pytest.approx(0.4)


@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=60))
def test_kappa_agrees_with_a_confusion_matrix_computed_independently(pairs):
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    table = np.zeros((2, 2))
    for x, y in pairs:
        table[int(x), int(y)] += 1
    n = table.sum()
    observed = np.trace(table) / n
    expected = (table.sum(axis=1) @ table.sum(axis=0)) / n**2
    result = cohen_kappa(a, b)
    assert result.observed == pytest.approx(observed)
    assert result.expected == pytest.approx(expected)
    if expected == 1:
        assert result.kappa is None
    else:
        assert result.kappa == pytest.approx((observed - expected) / (1 - expected))


@pytest.mark.failure_mode
def test_kappa_on_degenerate_labels_is_stated_not_crashed():
    assert cohen_kappa([], []).kappa is None
    one_label = cohen_kappa([True, True], [True, True])
    assert (one_label.kappa, one_label.observed, one_label.expected) == (None, 1.0, 1.0)


def test_the_kappa_interval_agrees_with_scipys_bootstrap():
    rng = np.random.default_rng(5)
    people = [bool(x) for x in rng.integers(0, 2, 40)]
    judge = [p if rng.random() < 0.8 else not p for p in people]
    ours = kappa_interval(people, judge)

    def kappa(index):
        p, j = np.asarray(people)[index], np.asarray(judge)[index]
        observed = np.mean(p == j)
        chance = np.mean(p) * np.mean(j) + np.mean(~p) * np.mean(~j)
        return (observed - chance) / (1 - chance)

    theirs = stats.bootstrap(
        (np.arange(40),), kappa, method="percentile", n_resamples=2000, random_state=1
    ).confidence_interval
    # two seeded bootstraps of the same statistic: the ends agree to resampling noise
    assert ours is not None
    assert ours[0] == pytest.approx(theirs.low, abs=0.06)
    assert ours[1] == pytest.approx(theirs.high, abs=0.06)


def test_the_kappa_bootstrap_can_draw_every_case():
    # people and judge agree on every case but one: a resample that draws that case has a
    # kappa below 1, so the interval reaches below 1 only if the case can be drawn
    people = [True] * 20 + [False] * 20
    for odd in (0, 39):  # the first case and the last
        judge = [not p if i == odd else p for i, p in enumerate(people)]
        ci = kappa_interval(people, judge)
        assert ci is not None and ci[0] < 1 and ci[1] == 1, odd


def test_one_label_on_both_sides_has_no_kappa_interval():
    # kappa is undefined when judge and people each used one label only: chance agreement is 1
    assert kappa_interval([True] * 10, [True] * 10) is None
    assert kappa_interval([], []) is None
