"""The corrected pass rate: each estimate against an independent implementation (judgy for
Rogan-Gladen, ppi-python for PPI++, scipy for Wilson), its properties, and every case in
which it must refuse to give a number."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from stages.s09_calibration.correction import Tally, pass_rate, rogan_gladen, tally
from stages.s09_calibration.estimates import Moments, mean_score, prediction_powered, wilson
from stages.s09_calibration.simulation import World, coverage, covers, simulate


@pytest.fixture(scope="module")
def judgy():
    """The anchors are test dependencies, pinned in pyproject.toml; ppi-python brings numba
    and scikit-learn, so they are imported only by the checks that use them."""
    import judgy

    return judgy


@pytest.fixture(scope="module")
def ppi_py():
    import ppi_py

    return ppi_py


# ppi-python divides the judge's variance behind lambda by n + m - 1, this code by n + m
PPI_TOLERANCE = 1e-4  # relative: 1 part in 10,000
RG_TOLERANCE = 1e-12  # Rogan-Gladen is one formula on the same counts: twelve decimal places
counts = st.integers(min_value=0, max_value=60)
tallies = st.builds(
    lambda a, b, c, d, passed, more: Tally(((a, b), (c, d)), min(passed, more), more),
    counts, counts, counts, counts, st.integers(0, 300), st.integers(0, 300),
)  # fmt: skip


def arrays(t: Tally):
    """The tally as rows: people and judge on the labelled cases, the judge on the rest."""
    (tn, fp), (fn, tp) = t.table
    people = np.array([0] * (tn + fp) + [1] * (fn + tp), dtype=float)
    judge = np.array([0] * tn + [1] * fp + [0] * fn + [1] * tp, dtype=float)
    rest = np.array([1] * t.passed + [0] * (t.unlabelled - t.passed), dtype=float)
    return people, judge, rest


def mirrored(t: Tally) -> Tally:
    """The same cases with pass and fail swapped, for the judge and the people alike."""
    (tn, fp), (fn, tp) = t.table
    return Tally(((tp, fn), (fp, tn)), t.unlabelled - t.passed, t.unlabelled)


def test_tally_counts_labelled_and_unlabelled_cases():
    found = tally([True, False, True, True, False], [True, False, False, None, None])
    # labelled: (pass, pass) tp, (fail, fail) tn, (fail, pass) fp; unlabelled: one pass of two
    assert found == Tally(((1, 1), (0, 1)), 1, 2)
    assert (found.labelled, found.cases, found.judge_passed) == (3, 5, 3)
    assert found.rates() == (1.0, 0.5)
    with pytest.raises(ValueError, match="got 2 and 1"):
        tally([True, False], [None])


@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_matches_scipy_and_stays_inside_zero_and_one(kn):
    k, n = kn
    expected = scipy_stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
    low, high = wilson(k, n)
    assert low == pytest.approx(expected.low, abs=1e-9)
    assert high == pytest.approx(expected.high, abs=1e-9)
    assert 0 <= low < high <= 1  # never zero width, even at 0 of n or n of n


@given(t=tallies)
def test_rogan_gladen_point_equals_judgy(judgy, t):
    found = rogan_gladen(t, resamples=200)
    tpr, tnr = t.rates()
    assume(tpr is not None and tnr is not None and tpr + tnr > 1 and found.evaluated)
    people, judge, rest = arrays(t)
    # judgy corrects the rate of the predictions it is given: here every case's verdict
    theirs, *_ = judgy.estimate_success_rate(
        people.astype(int), judge.astype(int), np.r_[judge, rest].astype(int), 1
    )
    assert found.value == pytest.approx(theirs, abs=RG_TOLERANCE)


@pytest.mark.parametrize("seed", [10, 11, 12])
def test_pass_rate_ppi_matches_ppi_python_at_95_percent(ppi_py, seed):
    t = simulate(World(), seed)
    people, judge, rest = arrays(t)
    mine = pass_rate(t, resamples=100)[3]
    theirs = ppi_py.ppi_mean_pointestimate(people, judge, rest)[0]
    low, high = ppi_py.ppi_mean_ci(people, judge, rest, alpha=0.05)  # its default is 90%
    assert mine.value == pytest.approx(theirs, rel=PPI_TOLERANCE)
    assert mine.ci == pytest.approx((low[0], high[0]), rel=PPI_TOLERANCE)


def test_mean_score_ppi_matches_ppi_python(ppi_py):
    rng = np.random.default_rng(5)
    truth = rng.integers(1, 11, size=900).astype(float)
    judged = np.clip(truth + rng.integers(0, 3, size=900), 1, 10)  # a judge that scores high
    people, judge, rest = truth[:150], judged[:150], judged[150:]
    only, gold, mine = mean_score(people.tolist(), judge.tolist(), rest.tolist(), (1, 10))
    assert only.value == pytest.approx(judged.mean()) and gold.value == pytest.approx(people.mean())
    low, high = ppi_py.ppi_mean_ci(people, judge, rest, alpha=0.05)
    assert mine.value == pytest.approx(
        ppi_py.ppi_mean_pointestimate(people, judge, rest)[0], rel=PPI_TOLERANCE
    )
    assert mine.ci == pytest.approx((low[0], high[0]), rel=PPI_TOLERANCE)


@given(st.integers(20, 300), st.integers(20, 300))  # enough of each class to resample
def test_a_perfect_judge_on_every_case_gives_the_human_rate_everywhere(fails, passes):
    t = Tally(((fails, 0), (0, passes)), 0, 0)  # everything labelled, judge never wrong
    human = passes / (fails + passes)
    for estimate in pass_rate(t, resamples=200):
        assert estimate.value == pytest.approx(human, abs=1e-12), estimate


@given(tallies)
def test_swapping_what_pass_means_mirrors_every_estimate(t):
    for mine, theirs in zip(
        pass_rate(t, resamples=400), pass_rate(mirrored(t), resamples=400), strict=True
    ):
        if mine.evaluated != theirs.evaluated:  # only a bootstrap's own draws may differ
            shaky = mine if not mine.evaluated else theirs
            assert mine.method == "Rogan-Gladen" and "resamples" in shaky.reason, shaky
        if mine.value is None or theirs.value is None:
            continue
        assert theirs.value == pytest.approx(1 - mine.value, abs=1e-9), mine.method
        assert mine.ci and theirs.ci
        # a bootstrap draws other resamples for the mirrored cells: its ends agree loosely
        slack = 0.15 if mine.method == "Rogan-Gladen" else 1e-9
        assert theirs.ci[0] == pytest.approx(1 - mine.ci[1], abs=slack), mine.method
        assert theirs.ci[1] == pytest.approx(1 - mine.ci[0], abs=slack), mine.method


@given(tallies)
def test_every_interval_holds_its_estimate_and_stays_within_zero_and_one(t):
    for estimate in pass_rate(t, resamples=400):
        if estimate.value is None:
            assert estimate.ci is None and estimate.reason
            continue
        assert estimate.ci is not None
        low, high = estimate.ci
        assert 0 <= low <= estimate.value <= high <= 1, estimate


def test_no_labels_one_class_or_a_chance_judge_is_never_a_number():
    none = Tally(((0, 0), (0, 0)), 30, 40)
    only, people, rg, ppi = pass_rate(none)
    assert only.evaluated and not (people.evaluated or rg.evaluated or ppi.evaluated)
    assert rg.reason == "no human labels"
    every_pass = Tally(((0, 0), (3, 57)), 300, 400)  # people passed every labelled case
    _, people, rg, ppi = pass_rate(every_pass)
    assert people.value == 1 and people.ci and people.ci[1] <= 1 and people.ci[0] < 1
    assert "every one of the 60 human labels is a pass" in rg.reason
    assert "never vary" in ppi.reason  # a normal interval of zero width is not printed
    chance = Tally(((20, 20), (20, 20)), 50, 100)  # TPR 0.5 + TNR 0.5 = 1
    assert (
        "no better than chance on the labelled cases: TPR 0.50 + TNR 0.50 = 1.00, not above 1"
        in (rogan_gladen(chance).reason)
    )
    worse = Tally(((10, 30), (30, 10)), 50, 100)  # TPR 0.25, TNR 0.25: the sign would flip
    assert "= 0.50, not above 1" in rogan_gladen(worse).reason


def test_a_correction_too_shaky_to_resample_is_not_evaluated():
    # TPR 2/3 + TNR 0.9 = 1.57 on the labels, but with only 3 human passes many resamples
    # hold none, or hold a judge no better than chance
    shaky = Tally(((9, 1), (1, 2)), 40, 60)
    found = rogan_gladen(shaky)
    assert not found.evaluated
    assert "too few labels for a stable correction: TPR 0.67 + TNR 0.90 - 1 = 0.57" in found.reason
    assert "resamples the labels had one class only" in found.reason


def test_the_bootstrap_resamples_the_unlabelled_cases_too():
    # a judge that is perfect on the labels: all the uncertainty is in the unlabelled rate
    t = Tally(((50, 0), (0, 50)), 500, 1000)
    low, high = rogan_gladen(t).ci or (0, 0)
    assert high - low > 0.03  # resampling only the labels would give zero width here


def test_an_estimate_past_a_bound_is_cut_and_says_so():
    # TPR 45/50 = 0.9, TNR 40/50 = 0.8; the judge passes 1005 of 1100 cases, more than its
    # TPR allows: (1005/1100 + 0.8 - 1) / 0.7 = 1.019
    t = Tally(((40, 10), (5, 45)), 950, 1000)
    found = rogan_gladen(t)
    assert found.value == 1.0 and "raw correction 1.019 was cut" in found.note
    ppi = prediction_powered(Moments(4, 4.0, 2.0, 4.0, 2.0, 2.0), Moments(4, f=4.0, ff=4.0))
    assert ppi.ci is None  # labels all 1: zero width, refused rather than "1.0 [1.0, 1.0]"


def test_the_simulated_world_is_the_lesson_s_shape():
    world = World()
    t = simulate(world, 10)
    assert (t.cases, t.labelled) == (4000, 600)
    only, people, rg, ppi = pass_rate(t)
    assert not covers(only, world.rate)  # the judge alone over-passes: its interval misses
    assert covers(people, world.rate) and covers(rg, world.rate) and covers(ppi, world.rate)
    assert ppi.ci and people.ci and ppi.ci[1] - ppi.ci[0] < people.ci[1] - people.ci[0]


def test_over_many_seeds_the_corrected_intervals_cover_the_truth_near_95_percent():
    found = coverage(World(), range(200), resamples=500)
    assert found["judge only"] < 0.05
    for method in ("people only", "Rogan-Gladen", "prediction-powered"):
        assert 0.92 <= found[method] <= 0.98, (method, found[method])


def test_the_lesson_states_the_tolerances_these_checks_use():
    lesson = " ".join((Path(__file__).parents[1] / "README.md").read_text().split())
    assert f"within one part in {1 / PPI_TOLERANCE:,.0f}" in lesson
    assert RG_TOLERANCE == 1e-12 and "to twelve decimal places" in lesson
