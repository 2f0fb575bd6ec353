"""Stage 9 statistics, each checked against an independent implementation or a hand value."""

import numpy as np
import pytest
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from stages.s09_calibration.stats import (
    bootstrap_ci,
    excludes_zero,
    mean,
    share_higher,
)

floats = st.floats(min_value=-100, max_value=100).map(lambda v: round(v, 3))


def test_mean_and_share_higher_by_hand():
    assert mean([1.0, 2.0, 6.0]) == 3.0
    assert share_higher([1.0, 0.0, -1.0, 2.0]) == 0.5  # two of four above zero
    assert mean([]) is None and share_higher([]) is None


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
