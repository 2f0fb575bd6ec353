"""The corrected pass rate: each estimate against an independent implementation (judgy for
Rogan-Gladen, ppi-python for PPI++, scipy for Wilson), its properties, and every case in
which it must refuse to give a number."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from stages.s11_correction.correction import (
    Tally,
    corrected,
    judge_only,
    pass_rate,
    rogan_gladen,
    tally,
)
from stages.s11_correction.estimates import (
    RATE,
    Estimate,
    Moments,
    bounded,
    lines,
    mean_score,
    prediction_powered,
    wilson,
)
from stages.s11_correction.simulation import World, coverage, covers, simulate


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


def test_lambda_is_kept_at_most_1_as_ppi_python_keeps_it(ppi_py):
    # a judge that halves every distance from 5 follows the people closely but too gently:
    # unclipped, lambda would be about 1.6 and trust the judge more than a perfect one
    rng = np.random.default_rng(8)
    truth = rng.integers(0, 11, size=500).astype(float)
    judged = 5 + (truth - 5) / 2
    people, judge, rest = truth[:100], judged[:100], judged[100:]
    *_, mine = mean_score(people.tolist(), judge.tolist(), rest.tolist(), (0, 10))
    assert mine.note == "lambda 1.00"
    assert mine.value == pytest.approx(people.mean() + rest.mean() - judge.mean())  # plain PPI
    assert mine.value == pytest.approx(
        ppi_py.ppi_mean_pointestimate(people, judge, rest)[0], rel=PPI_TOLERANCE
    )
    low, high = ppi_py.ppi_mean_ci(people, judge, rest, alpha=0.05)
    assert mine.ci == pytest.approx((low[0], high[0]), rel=PPI_TOLERANCE)


def test_the_mean_scores_of_judge_and_people_have_scipy_s_normal_intervals():
    rng = np.random.default_rng(9)
    people = rng.integers(1, 11, size=40).astype(float)
    judged, rest = np.clip(people + 1, 1, 10), rng.integers(3, 9, size=200).astype(float)
    three = mean_score(people.tolist(), judged.tolist(), rest.tolist(), (-100, 100))
    assert [e.method for e in three] == ["judge only", "people only", "prediction-powered"]
    only, gold, _ = three
    for found, values in ((only, np.r_[judged, rest]), (gold, people)):
        # the standard error from the population standard deviation (ddof 0), as PPI's own
        spread = values.std() / np.sqrt(values.size)
        expected = scipy_stats.norm.interval(0.95, loc=values.mean(), scale=spread)
        assert found.value == pytest.approx(values.mean(), rel=1e-12)
        assert found.ci == pytest.approx(expected, rel=1e-12) and found.note == "", found
    flat = mean_score([7.0] * 12, [8.0] * 12, [8.0] * 30, (1, 10))
    assert [e.reason for e in flat] == [
        "all 42 scores are equal: no interval to draw",
        "all 12 scores are equal: no interval to draw",
        "the 12 human labels never vary: a normal interval would have zero width",
    ]


def test_an_interval_is_cut_only_where_it_crosses_a_bound():
    inside = bounded("m", 0.5, 0.1, RATE, "lambda 0.50")
    assert inside.ci == pytest.approx((0.4, 0.6)) and inside.note == "lambda 0.50"
    below = bounded("m", 0.02, 0.05, RATE, "lambda 0.50")
    assert below.ci == pytest.approx((0.0, 0.07)) and below.note == "lambda 0.50; cut at [0, 1]"
    above = bounded("m", 10.05, 0.1, (1, 10), "")
    assert above.value == 10 and above.ci == pytest.approx((9.95, 10))
    assert above.note == "cut at [1, 10]"
    # wholly past the bound: cut, it would read "10 [10, 10]", certain of an impossible value
    past = bounded("m", 10.4, 0.1, (1, 10), "")
    assert not past.evaluated and past.ci is None
    assert past.reason == (
        "10.400 \u00b1 0.100 lies wholly outside [1, 10]: the labelled cases are not like the rest"
    )


def test_each_estimate_is_one_line_its_figures_or_why_there_are_none():
    shown = [
        Estimate("judge only", 0.5, (0.25, 0.75), note="cut at [0, 1]"),
        Estimate("Rogan-Gladen", None, None, reason="no human labels"),
        Estimate("people only", -0.125, (-0.5, 0.25)),
    ]
    assert lines(shown, indent="> ", sign="+") == [
        "> judge only    +0.500 [+0.250, +0.750]  cut at [0, 1]",
        "> Rogan-Gladen  NOT EVALUATED \u2014 no human labels",
        "> people only   -0.125 [-0.500, +0.250]",
    ]


def test_the_json_says_whether_a_correction_was_made_and_why_not():
    none = Tally(((0, 0), (0, 0)), 30, 40)
    refused = corrected(none, pass_rate(none))
    assert (refused["state"], refused["labelled"], refused["unlabelled"]) == (
        "not_evaluated",
        0,
        40,
    )
    assert refused["reason"] == (
        "people only: no human labels; Rogan-Gladen: no human labels; prediction-powered: no "
        "human labels"
    )
    world = simulate(World(), 10)
    made = corrected(world, pass_rate(world, resamples=200))
    assert (made["state"], made["reason"], made["labelled"]) == ("evaluated", "", 600)
    assert [e["method"] for e in made["estimates"]] == [
        "judge only", "people only", "Rogan-Gladen", "prediction-powered"
    ]  # fmt: skip
    assert "200 resamples" in made["estimates"][2]["note"]
    every = pass_rate(Tally(((30, 10), (5, 55)), 0, 0))[3]  # no case without a label
    assert every.note == "lambda 0: every case has a human label"
    same = pass_rate(Tally(((0, 30), (0, 70)), 400, 400))[3]  # the judge passes everything
    assert same.note == "lambda 0: the judge gave every case the same verdict"


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
# the judge passes 4 of the 19 labelled cases people pass, and every unlabelled one: PPI's
# 1.458 +- 0.138 lies wholly above 1, where cutting each end gave the interval [1.320, 1.000]
@example(Tally(((1, 0), (15, 4)), 1000, 1000))
def test_every_interval_holds_its_estimate_and_stays_within_zero_and_one(t):
    for estimate in pass_rate(t, resamples=400):
        if estimate.value is None:
            assert estimate.ci is None and estimate.reason
            continue
        assert estimate.ci is not None
        low, high = estimate.ci
        assert 0 <= low <= estimate.value <= high <= 1, estimate


@pytest.mark.failure_mode
def test_no_labels_one_class_or_a_chance_judge_is_never_a_number():
    none = Tally(((0, 0), (0, 0)), 30, 40)
    only, people, rg, ppi = pass_rate(none)
    assert only.evaluated and not (people.evaluated or rg.evaluated or ppi.evaluated)
    assert rg.reason == ppi.reason == "no human labels"
    few = pass_rate(Tally(((0, 0), (0, 1)), 5, 10))[3]
    assert few.reason == "1 human label: a normal interval needs at least 10"
    assert pass_rate(Tally(((4, 1), (1, 3)), 5, 10))[3].reason.startswith("9 human labels: ")
    assert judge_only(Tally(((0, 0), (0, 0)), 0, 0)).reason == "no cases"
    every_pass = Tally(((0, 0), (3, 57)), 300, 400)  # people passed every labelled case
    _, people, rg, ppi = pass_rate(every_pass)
    assert people.value == 1 and people.ci and people.ci[1] <= 1 and people.ci[0] < 1
    assert (
        rg.reason
        == "every one of the 60 human labels is a pass: the judge's true-negative rate cannot "
        "be measured"
    )
    every_fail = Tally(((57, 3), (0, 0)), 300, 400)  # the mirror: people failed every case
    assert (
        rogan_gladen(every_fail).reason
        == "every one of the 60 human labels is a fail: the judge's true-positive rate cannot "
        "be measured"
    )
    one = rogan_gladen(Tally(((0, 0), (0, 1)), 5, 10)).reason
    assert one.startswith("the one human label is a pass: ")
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


@pytest.mark.failure_mode
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
    assert found.value == 1.0 and found.note == (
        "TPR 0.90, TNR 0.80; 2000 resamples (seed 16); the raw correction 1.019 was cut to the "
        "nearest bound"
    )
    # the same judge passing 555 of 1100: (555/1100 + 0.8 - 1) / 0.7 = 0.435, nothing to cut
    inside = rogan_gladen(Tally(((40, 10), (5, 45)), 500, 1000))
    assert inside.value == pytest.approx((555 / 1100 + 0.8 - 1) / 0.7)
    assert inside.note == "TPR 0.90, TNR 0.80; 2000 resamples (seed 16)"
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


@pytest.mark.failure_mode
def test_over_many_seeds_the_corrected_intervals_cover_the_truth_near_95_percent():
    found = coverage(World(), range(200), resamples=500)
    assert found["judge only"] < 0.05
    for method in ("people only", "Rogan-Gladen", "prediction-powered"):
        assert 0.92 <= found[method] <= 0.98, (method, found[method])


def test_the_lesson_states_the_tolerances_these_checks_use():
    lesson = " ".join((Path(__file__).parents[1] / "README.md").read_text().split())
    assert f"within one part in {1 / PPI_TOLERANCE:,.0f}" in lesson
    assert RG_TOLERANCE == 1e-12 and "to twelve decimal places" in lesson
