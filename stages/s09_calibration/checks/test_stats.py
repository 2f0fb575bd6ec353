"""Stage 9 statistics, each checked against an independent implementation or a hand value."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from stages.s09_calibration.stats import (
    bootstrap_ci,
    cohen_kappa,
    correlation_ci,
    excludes_zero,
    flips,
    mean,
    pearson,
    ranks,
    share_higher,
    spearman,
)

floats = st.floats(min_value=-100, max_value=100).map(lambda v: round(v, 3))


def test_mean_and_share_higher_by_hand():
    assert mean([1.0, 2.0, 6.0]) == 3.0
    assert share_higher([1.0, 0.0, -1.0, 2.0]) == 0.5  # two of four above zero
    assert mean([]) is None and share_higher([]) is None


def test_flips_count_changed_verdicts():
    assert flips([True, True, False, False], [True, False, True, False]) == 2
    with pytest.raises(ValueError, match="paired verdicts, got 2 and 1"):
        flips([True, False], [True])


@given(st.lists(st.tuples(floats, floats), min_size=3, max_size=40))
def test_pearson_and_spearman_agree_with_scipy(pairs):
    x, y = [p[0] for p in pairs], [p[1] for p in pairs]
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        assert pearson(x, y) is None
        return
    assert pearson(x, y) == pytest.approx(scipy_stats.pearsonr(x, y).statistic, abs=1e-9)
    if np.ptp(ranks(x)) and np.ptp(ranks(y)):
        assert spearman(x, y) == pytest.approx(scipy_stats.spearmanr(x, y).statistic, abs=1e-9)


def test_ranks_share_ties_like_scipy():
    values = [3.0, 1.0, 3.0, 2.0, 3.0]
    assert ranks(values).tolist() == scipy_stats.rankdata(values).tolist() == [4, 1, 4, 2, 4]


@pytest.mark.failure_mode
def test_correlation_without_variance_is_undefined_not_zero():
    assert pearson([1, 2, 3], [5, 5, 5]) is None
    assert spearman([1, 2, 3], [5, 5, 5]) is None
    assert pearson([1], [2]) is None and spearman([], []) is None


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


def test_bootstrap_matches_scipy_percentile_interval_closely():
    values = np.random.default_rng(3).normal(1.0, 2.0, size=400)
    ours = bootstrap_ci(values.tolist(), seed=11, resamples=4000)
    theirs = scipy_stats.bootstrap(
        (values,), np.mean, n_resamples=4000, method="percentile", random_state=11
    ).confidence_interval
    assert ours is not None
    assert ours[0] == pytest.approx(theirs.low, abs=0.05)
    assert ours[1] == pytest.approx(theirs.high, abs=0.05)


def test_bootstrap_is_reproducible_by_seed_and_degenerate_inputs_are_stated():
    values = np.random.default_rng(5).normal(size=50).tolist()
    assert bootstrap_ci(values, seed=1) == bootstrap_ci(values, seed=1)
    assert bootstrap_ci(values, seed=1) != bootstrap_ci(values, seed=2)
    assert bootstrap_ci([], seed=1) is None
    assert bootstrap_ci([2.5], seed=1) == (2.5, 2.5)
    assert bootstrap_ci([1.0, 1.0, 1.0], seed=1) == (1.0, 1.0)


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("interval", "excluded"),
    [
        ((0.1, 0.9), True),
        ((-0.9, -0.1), True),
        ((-0.1, 0.3), False),
        ((0.0, 0.4), False),
        (None, False),
    ],
)
def test_bias_is_real_only_when_the_interval_excludes_zero_either_way(interval, excluded):
    assert excludes_zero(interval) is excluded


def test_the_interval_of_rho_worked_by_hand():
    # rho 0.5 over 28 pairs: z = atanh(0.5) = 0.549306; Fieller, Hartley and Pearson give z a
    # variance of 1.06 / 25, a standard error of 0.205913; 1.959964 of them is 0.403581;
    # tanh(0.549306 - 0.403581) = 0.144702, tanh(0.549306 + 0.403581) = 0.741087
    assert correlation_ci(0.5, 28) == pytest.approx((0.144702, 0.741087), abs=1e-6)
    assert correlation_ci(-0.5, 28) == pytest.approx((-0.741087, -0.144702), abs=1e-6)
    narrower = correlation_ci(0.5, 28, level=0.90)  # a lower level, a narrower interval
    assert narrower is not None and narrower[0] > 0.144702
    assert correlation_ci(0.5, 3) is None and correlation_ci(None, 28) is None
    low, high = correlation_ci(1.0, 10) or (0, 0)
    assert low < high == pytest.approx(1.0)  # a perfect rho: an interval that touches it
