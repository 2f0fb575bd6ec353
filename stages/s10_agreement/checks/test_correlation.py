"""Correlation with length: Pearson, Spearman and rho's interval, against scipy or by hand."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from stages.s10_agreement.correlation import (
    correlation_ci,
    pearson,
    ranks,
    spearman,
)

floats = st.floats(min_value=-100, max_value=100).map(lambda v: round(v, 3))


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


@pytest.mark.failure_mode
def test_scores_too_large_to_average_still_have_a_pearson_r():
    # 1 followed by 308 zeros is a finite float, but the sum of two of them is not: taken as
    # it comes, the mean overflows and r is nan. r ignores scale, so scipy's r of the same
    # points shrunk by 1e300 is the r of the points themselves
    lengths, scores = [5, 40, 12, 30, 8], [1e308, -1e308, 3e307, -5e307, 9e307]
    expected = scipy_stats.pearsonr(lengths, [s / 1e300 for s in scores]).statistic
    assert pearson(lengths, scores) == pytest.approx(expected, abs=1e-12)
    assert pearson(scores, lengths) == pytest.approx(expected, abs=1e-12)


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
