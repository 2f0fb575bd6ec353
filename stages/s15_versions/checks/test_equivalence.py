"""Two one-sided tests: the t distribution and the p-values held to SciPy and statsmodels on
the same numbers, and no difference found never read as equivalence."""

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.weightstats import ttost_paired

from stages.s15_versions.equivalence import t_cdf, tost


@pytest.mark.parametrize("df", [1, 2, 5, 47, 400])
def test_the_t_distribution_function_is_scipys(df):
    for t in (-30.0, -2.5, -0.4, 0.0, 0.7, 1.96, 8.0):
        assert t_cdf(t, df) == pytest.approx(stats.t.cdf(t, df), abs=1e-10)


@pytest.mark.parametrize("seed", range(6))
def test_tost_gives_statsmodels_p_value_on_the_same_pairs(seed):
    rng = np.random.default_rng(seed)
    old = rng.normal(5, 2, 48)
    new = old + rng.normal(rng.uniform(-0.2, 0.2), 0.4, 48)
    theirs, _, _ = ttost_paired(new, old, -0.25, 0.25)
    ours = tost((new - old).tolist(), 0.25)
    assert ours is not None and ours.p == pytest.approx(theirs, abs=1e-9)
    assert ours.differs == pytest.approx(stats.ttest_rel(new, old).pvalue, abs=1e-9)


@pytest.mark.failure_mode
def test_no_difference_found_is_not_equivalence():
    # Ten noisy pairs: the test of "no difference" finds none (p well above 5%), and the
    # interval is far too wide to put the difference inside the margin.
    differences = [0.4, -0.6, 0.5, -0.3, 0.2, -0.5, 0.6, -0.2, 0.1, 0.0]
    found = tost(differences, 0.1)
    assert found is not None and found.differs > 0.5
    assert not found.equivalent and found.p > 0.05
    # many pairs that differ by little: both tests agree the difference is inside
    close = tost([0.01 * (i % 5 - 2) for i in range(200)], 0.1)
    assert close is not None and close.equivalent


def test_differences_that_never_vary_are_inside_the_margin_or_not():
    same = tost([0.0] * 48, 0.1)
    assert same is not None and (same.equivalent, same.differs) == (True, 1.0)
    apart = tost([0.2] * 48, 0.1)
    assert apart is not None and not apart.equivalent
    assert tost([0.0], 0.1) is None  # one pair has no spread to test


def test_the_clause_says_which_way_it_went():
    found = tost([0.0] * 10, 0.1)
    assert found is not None
    assert found.said("agreement") == "agreement +0.00 over 10 pairs, within ±0.10 (p 0.000)"
