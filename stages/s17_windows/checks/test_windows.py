"""Scores over time: PSI is the symmetric KL divergence scipy computes and the figure a hand
count gives; it is zero, symmetric and never negative; its p-value is the one every deal of
the scores gives, drawn from the bin counts alone; an agent drifting towards verbosity lifts a
length-loving judge's mean every week and leaves the steady judge's scores as they were; thin
windows, unreadable files, too few windows and scores too large to compute with are not
evaluated."""

import itertools
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import entropy, hypergeom, permutation_test

from stages.s17_windows import psi as psi_module
from stages.s17_windows.psi import (
    ALPHA,
    DEALS,
    MAJOR,
    MODERATE,
    by_chance,
    dealt,
    psi,
    reading,
    shares,
)
from stages.s17_windows.windows import (
    MIN_WINDOW,
    Window,
    bins,
    demo_windows,
    drift,
    read_window,
    render,
    rising,
    shift,
)


def window(label, scores, unread=0):
    return Window(label, tuple(float(score) for score in scores), unread)


def smoothed(counts):
    """Shares with half a score added to every bin, computed apart from the module."""
    counts = np.asarray(counts, dtype=float) + 0.5
    return counts / counts.sum()


def test_psi_is_the_symmetric_kl_divergence_scipy_computes_over_discrete_scores():
    before = [3, 3, 4, 5, 5, 5, 7, 8, 8, 9]
    after = [5, 5, 6, 7, 7, 8, 8, 8, 9, 9, 10, 10]
    values = sorted(set(before + after))  # 11 distinct values: each is its own bin
    edges = bins([window("a", before), window("b", after)])
    assert edges == tuple(values)
    p = smoothed([before.count(value) for value in values])
    q = smoothed([after.count(value) for value in values])
    assert psi(before, after, edges) == pytest.approx(entropy(p, q) + entropy(q, p))


def test_psi_is_the_symmetric_kl_divergence_over_ten_equal_width_bins():
    rng = np.random.default_rng(7)
    before, after = rng.normal(5, 1, 200), rng.normal(5.5, 1.5, 300)
    edges = bins([window("a", before), window("b", after)])
    assert len(edges) == 10  # hundreds of distinct values: ten bins of equal width
    pooled = np.concatenate([before, after])
    span = (pooled.min(), pooled.max())  # numpy's histogram also closes the last bin on the right
    p = smoothed(np.histogram(before, bins=10, range=span)[0])
    q = smoothed(np.histogram(after, bins=10, range=span)[0])
    assert psi(list(before), list(after), edges) == pytest.approx(entropy(p, q) + entropy(q, p))


def test_a_small_psi_worked_by_hand():
    # bins {0, 1}; before 0,0,0,1 counts (3, 1), smoothed (3.5, 1.5) / 5 = (0.7, 0.3);
    # after 0,1,1,1 gives (0.3, 0.7). PSI = (0.3 - 0.7) ln(0.3 / 0.7) + (0.7 - 0.3) ln(0.7 / 0.3)
    # = 2 * 0.4 * ln(7 / 3) = 0.8 * 0.847298 = 0.677838
    assert shares([0, 0, 0, 1], (0.0, 1.0)) == pytest.approx((0.7, 0.3))
    assert psi([0, 0, 0, 1], [0, 1, 1, 1], (0.0, 1.0)) == pytest.approx(0.677838, abs=1e-6)
    assert psi([0, 0, 0, 1], [0, 1, 1, 1], (0.0, 1.0)) == pytest.approx(0.8 * math.log(7 / 3))


def test_an_empty_bin_keeps_psi_finite():
    # bins {0, 1}; before all 0: (10.5, 0.5) / 11; after all 1: (0.5, 10.5) / 11.
    # PSI = 2 * (10 / 11) * ln(10.5 / 0.5) = (20 / 11) * ln 21 = 5.5354
    assert psi([0] * 10, [1] * 10, (0.0, 1.0)) == pytest.approx(20 / 11 * math.log(21))


def test_more_than_twenty_distinct_scores_make_ten_bins_of_equal_width():
    assert bins([window("a", range(20))]) == tuple(float(value) for value in range(20))
    scores = range(21)  # 21 distinct values from 0 to 20: ten bins, a width of 2
    assert bins([window("a", scores)]) == tuple(float(edge) for edge in range(0, 20, 2))
    assert bins([window("a", [7, 3, 7]), window("b", [5])]) == (3.0, 5.0, 7.0)
    assert bins([]) == ()


def test_the_conventional_reading_of_psi():
    expected = ["stable", "stable", "a moderate shift", "a moderate shift", "a major shift"]
    assert [reading(value) for value in (0.0, 0.0999, 0.1, 0.25, 0.2501)] == expected


samples = st.one_of(
    st.lists(st.integers(0, 10).map(float), max_size=30),  # a judge's few values
    st.lists(st.floats(-1e3, 1e3), max_size=60),  # many distinct values: equal-width bins
)


@given(samples)
def test_psi_of_a_window_against_itself_is_zero(scores):
    assert psi(scores, scores, bins([window("a", scores)])) == 0


@given(samples, samples)
def test_psi_is_symmetric(before, after):
    edges = bins([window("a", before), window("b", after)])
    assert psi(before, after, edges) == psi(after, before, edges)


@given(samples, samples)
def test_psi_is_never_negative(before, after):
    assert psi(before, after, bins([window("a", before), window("b", after)])) >= 0


@pytest.fixture(scope="module")
def demo():
    return {judge: demo_windows(judge) for judge in ("biased", "steady")}


def test_a_verbose_drift_lifts_a_length_loving_judges_mean_in_every_window(demo):
    weeks = demo["biased"]
    assert [w.label for w in weeks] == ["week 1", "week 2", "week 3", "week 4"]
    assert all(len(w.scores) == 12 and w.unread == 0 for w in weeks)
    found = drift(weeks)
    assert found.rising.state == "found" and found.rising.rose == (True, True, True)
    assert found.rising.means == pytest.approx([np.mean(w.scores) for w in weeks])
    assert str(found.rising.verdict).endswith("ask why before trusting it")
    assert any((shift.psi or 0) > MODERATE for shift in found.shifts)  # None would fail here
    # twelve scores a week: the index reads a major shift from the first week to the last,
    # and the permutation test says windows this small get that far apart by chance
    assert found.overall is not None and found.overall.state == "not_found"
    assert found.overall.psi is not None and found.overall.psi > MAJOR
    assert found.overall.p_value is not None and found.overall.p_value >= ALPHA
    assert "no more than chance gives windows this small" in str(found.overall.verdict)


def test_the_permutation_p_value_agrees_with_scipys_permutation_test():
    rng = np.random.default_rng(3)
    before, after = list(rng.integers(0, 8, 40)), list(rng.integers(1, 9, 30))
    edges = bins([window("a", before), window("b", after)])
    theirs = permutation_test(
        (before, after), lambda a, b: psi(a, b, edges), permutation_type="independent",
        n_resamples=2000, alternative="greater", random_state=4,
    ).pvalue  # fmt: skip
    # two seeded runs of 2000 deals each: they agree to resampling noise (sd about 0.01)
    assert by_chance(before, after, edges) == pytest.approx(theirs, abs=0.04)
    # windows dealt from one pool: every deal is at least as far apart as they are, and the
    # p-value is exactly 1, never more
    same = list(rng.integers(0, 8, 40))
    assert by_chance(same, same, bins([window("a", same)])) == 1.0


def far_apart(first, second):
    """PSI of each row of two tables of bin counts, computed apart from the module."""
    p, q = smoothed_rows(first), smoothed_rows(second)
    return ((q - p) * np.log(q / p)).sum(axis=-1)


def smoothed_rows(counts):
    counts = np.asarray(counts, dtype=float) + 0.5
    return counts / counts.sum(axis=-1, keepdims=True)


def within_sampling_error(drawn, exact):
    # DEALS draws of a share: sd sqrt(p (1 - p) / DEALS); four of them, and the one deal the
    # p-value counts as the observed one, 1 / (1 + DEALS)
    return abs(drawn - exact) <= 4 * math.sqrt(exact * (1 - exact) / DEALS) + 1 / (1 + DEALS)


def exact_p_value(before, after):
    """Every way of dealing the pooled scores (each one a labelled card) into windows of the
    sizes observed, enumerated: the share of deals at least as far apart as the observed."""
    pooled = before + after
    values = sorted(set(pooled))
    onehot = np.eye(len(values), dtype=int)[[values.index(v) for v in pooled]]
    first = onehot[: len(before)].sum(axis=0)
    observed = far_apart(first, onehot.sum(axis=0) - first)
    deals = np.array(list(itertools.combinations(range(len(pooled)), len(before))))
    drawn_first = onehot[deals].sum(axis=1)
    apart = far_apart(drawn_first, onehot.sum(axis=0) - drawn_first)
    return float(np.mean(apart >= observed - 1e-12))


def test_the_drawn_p_value_is_the_one_every_deal_of_the_scores_gives():
    # the module draws bin counts instead of dealing scores; the two agree to sampling error
    cases = [
        # 9 and 10 scores over 3 bins: C(19, 9) = 92,378 deals, about 2% as far apart
        ([0, 0, 0, 0, 1, 1, 1, 2, 2], [1, 2, 2, 2, 2, 2, 2, 2, 1, 2]),
        # 8 and 8 over 3 bins: C(16, 8) = 12,870 deals, about 1% as far apart
        ([1, 1, 1, 1, 1, 2, 2, 3], [2, 2, 3, 3, 3, 3, 3, 3]),
    ]  # windows of (nearly) equal size: how a quiet week is dealt is an exercise's to check
    for before, after in cases:
        exact = exact_p_value(before, after)
        assert 0.005 < exact < 0.1  # small: where a deal of another kind would differ most
        edges = tuple(float(value) for value in sorted(set(before + after)))
        assert within_sampling_error(by_chance(before, after, edges), exact), (before, after)


def test_a_deal_is_drawn_from_the_bin_counts_and_never_given_the_scores(monkeypatch):
    given = []

    def recorded(first, second, *rest):
        given.append((first, second))
        return original(first, second, *rest)

    original = psi_module.dealt
    monkeypatch.setattr(psi_module, "dealt", recorded)
    rng = np.random.default_rng(5)
    before, after = rng.binomial(10, 0.6, 100_000), rng.binomial(10, 0.6, 50_000)
    edges = bins([window("a", before), window("b", after)])  # the 11 values 0 to 10
    by_chance(list(before), list(after), edges)
    ((first, second),) = given
    assert first.shape == second.shape == (11,)  # one count a bin, whatever the windows' size
    assert list(first) == [list(before).count(v) for v in range(11)]
    assert list(second) == [list(after).count(v) for v in range(11)]


def test_windows_of_a_hundred_million_scores_are_dealt_from_their_counts():
    # Two bins; X, the first window's count in bin 0, is hypergeometric: 10**8 cards drawn of
    # 2 * 10**8, of which 100,012,000 are in bin 0. Its mean is 50,006,000 and its sd
    # sqrt(10**8 * 1/4 * 1/2) = 3,536, so the observed 50,000,000 is 1.7 sd off (p about
    # 0.09, two-sided). scipy's pmf, summed over every X within 12 sd whose deal is at least
    # as far apart, is the exact p-value; dealing each score would need 1.6 GB to hold them.
    first, second = np.array([50_000_000, 50_000_000]), np.array([50_012_000, 49_988_000])
    xs = np.arange(50_006_000 - 42_432, 50_006_000 + 42_433)
    deal = np.stack([xs, 10**8 - xs], axis=1)
    apart = far_apart(deal, (first + second) - deal) >= far_apart(first, second) - 1e-12
    exact = float(hypergeom.pmf(xs, 2 * 10**8, 100_012_000, 10**8)[apart].sum())
    assert 0.07 < exact < 0.11
    assert within_sampling_error(dealt(first, second), exact)


def test_two_windows_give_one_shift_and_no_first_to_last_repeat_of_it():
    two = drift([window("a", range(10)), window("b", range(1, 11))], last=1)
    assert len(two.shifts) == 1 and two.overall is None
    assert two.rising.state == "found" and two.rising.rose == (True,)  # one step, one rise


def test_windows_drawn_alike_are_rarely_a_shift_though_the_index_often_reads_major():
    # the mirrored half with noise: two windows of 50 from one distribution over 9 bins
    found = major = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        a, b = (window(name, rng.binomial(8, 0.6, 50)) for name in "ab")
        measured = shift(a, b, bins([a, b]))
        found += measured.state == "found"
        major += (measured.psi or 0) > MAJOR
    assert major >= 10  # the convention alone would cry "major shift" on noise this often
    assert found <= 4  # the test at 5% allows about 2 of 40; 4 leaves room for the draw


def test_a_real_shift_in_windows_of_two_hundred_is_found():
    rng = np.random.default_rng(7)
    a, b = window("a", rng.binomial(8, 0.5, 200)), window("b", rng.binomial(8, 0.7, 200))
    measured = shift(a, b, bins([a, b]))
    assert measured.state == "found" and measured.p_value is not None
    assert measured.p_value < ALPHA and measured.verdict == "a major shift"


def test_the_steady_judge_sees_the_same_scores_every_week(demo):
    weeks = demo["steady"]
    assert all(sorted(w.scores) == sorted(weeks[0].scores) for w in weeks)
    found = drift(weeks)
    assert found.rising.state == "not_found" and found.rising.rose == (False, False, False)
    assert found.overall is not None
    assert [shift.psi for shift in (*found.shifts, found.overall)] == [0, 0, 0, 0]
    assert all(shift.verdict == "stable" for shift in found.shifts)


def test_a_rise_that_stops_in_the_last_window_is_not_found():
    flat = [window(f"w{n}", [mean] * MIN_WINDOW) for n, mean in enumerate([1, 2, 3, 2])]
    result = rising(flat)
    assert (result.state, result.rose) == ("not_found", (True, True, False))
    assert result.verdict == "the mean score rose in 2 of the last 3 windows"
    level = [window(f"w{n}", [mean] * MIN_WINDOW) for n, mean in enumerate([1, 2, 3, 3])]
    assert rising(level).state == "not_found"  # equal is not a rise
    earlier = [window(f"w{n}", [mean] * MIN_WINDOW) for n, mean in enumerate([9, 1, 2, 3, 4])]
    assert rising(earlier).state == "found"  # only the last three steps count


@pytest.mark.failure_mode
def test_a_window_of_fewer_than_ten_scores_is_not_evaluated():
    found = drift([window("a", range(10)), window("b", range(9))])
    (shift,) = found.shifts
    assert (shift.state, shift.psi, shift.verdict) == ("not_evaluated", None, None)
    assert shift.outcome.reason == "b: fewer than 10 usable scores: 9 usable of 9, 0 unscored"
    assert "  a → b: NOT EVALUATED — b: fewer than 10 usable scores" in render(found)[1]
    assert json.loads(json.dumps(found.to_json()))["shifts"][0]["state"] == "not_evaluated"


@pytest.mark.failure_mode
def test_fewer_than_n_plus_one_windows_is_not_evaluated():
    weeks = [window(f"w{n}", [n] * MIN_WINDOW) for n in range(3)]
    result = rising(weeks, last=3)
    assert result.state == "not_evaluated" and result.verdict is None and result.rose == ()
    assert result.outcome.reason == (
        "needs 4 windows of at least 10 usable scores, got 3 (30 usable of 30, 0 unscored)"
    )
    assert result.means == (0.0, 1.0, 2.0)  # the means are still shown, window by window
    thin = [*weeks, window("w3", [9] * 4)]  # four windows, but the last has four scores
    assert rising(thin).outcome.reason.startswith("needs 4 windows of at least 10 usable scores")
    assert render(drift(thin))[-1].startswith("  NOT EVALUATED — needs 4 windows")


@pytest.mark.failure_mode
def test_unreadable_rows_are_counted_named_and_count_against_their_window(tmp_path):
    first = tmp_path / "week 1.csv"  # a BOM before the header, as Excel writes "CSV UTF-8"
    first.write_text("\ufeffscore\n" + "7\n" * 12 + "nan\ngood\n", encoding="utf-8")
    week = read_window(first)
    assert (week.label, len(week.scores), week.unread) == ("week 1.csv", 12, 2)
    # rows are numbered as a spreadsheet does: the header is row 1, the scores rows 2 to 13
    assert [problem.split(":")[0] for problem in week.problems] == ["row 14", "row 15"]
    assert "'nan'" in week.problems[0] and "'good'" in week.problems[1]

    second = tmp_path / "week 2.csv"  # 10 scores, 11 rows that are not one, a blank line
    bad = ["nan", "good", '"7,5"', "inf", '""', "", "1e3", "n/a", "-", "ten", "5/10", "7,8"]
    second.write_text("score\n" + "8\n" * 10 + "\n".join(bad) + "\n", encoding="utf-8")
    later = read_window(second)
    assert (len(later.scores), later.unread) == (10, 11)  # a blank line is not a row
    assert len(later.problems) == 10  # the first SHOWN_BAD_ROWS named; all of them counted
    assert "row 16: no value in column 'score'" in later.problems

    (shift,) = drift([week, later]).shifts
    assert shift.state == "not_evaluated" and shift.psi is None
    assert shift.outcome.reason == (
        "week 2.csv: too little usable data: 10 usable of 21, 11 unscored "
        "(needs at least 2 and 50%)"
    )


@pytest.mark.failure_mode
def test_a_jsonl_window_names_a_score_that_is_text_or_null(tmp_path):
    path = tmp_path / "week.jsonl"
    rows = [{"score": 6}] * 10 + [{"score": "6"}, {"score": None}, {"other": 1}]
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    week = read_window(path)
    assert (len(week.scores), week.unread, len(week.problems)) == (10, 3, 3)
    assert [problem.split(":")[0] for problem in week.problems] == ["row 11", "row 12", "row 13"]


def strict(text):
    """JSON as the standard has it: NaN and Infinity, which Python writes and reads by
    default, are refused."""
    return json.loads(text, parse_constant=lambda name: pytest.fail(f"not JSON: {name}"))


@pytest.mark.failure_mode
def test_scores_too_large_to_bin_are_not_evaluated_never_stable(cli, tmp_path):
    # 10**308 and its negative are finite decimals, and the reader takes them; the span
    # between them is 2e308, past the largest float (about 1.8e308), so bins of equal width
    # (25 distinct scores: more than 20) would have a width of inf and edges of NaN and inf
    huge = "1" + "0" * 308
    paths = []
    for week, extra in enumerate([[huge, "-" + huge], [], []]):
        path = tmp_path / f"week{week + 1}.csv"
        ordinary = [f"{n % 22 + 3 * week}.5" for n in range(30)]
        path.write_text("score\n" + "\n".join(ordinary + extra) + "\n", encoding="utf-8")
        paths.append(str(path))
    result = cli("stages.s17_windows", *paths, "--json")
    assert result.returncode == 1, result.stderr
    (found,) = strict(result.stdout).values()
    assert found["bins"] == []
    why = "scores too large to bin: the span from -1e+308 to 1e+308 overflows a float"
    for tested in [*found["shifts"], found["overall"]]:
        assert (tested["state"], tested["reason"], tested["psi"]) == ("not_evaluated", why, None)
    text = cli("stages.s17_windows", *paths)
    assert text.returncode == 1 and f"week1.csv → week2.csv: NOT EVALUATED — {why}" in text.stdout
    assert "stable" not in text.stdout and "(p " not in text.stdout  # no figure, no reading


@pytest.mark.failure_mode
def test_a_mean_past_the_largest_float_is_not_evaluated_and_not_shown(cli, tmp_path):
    # ten scores of 1e308 add up to 1e309: past the largest float, so their mean overflows
    # (numpy's sum, as its mean's); every window has 20 or fewer distinct scores, so the
    # bins are the values themselves and the shifts are measured
    weeks = [[1.0] * 10, [2.0] * 10, [3.0] * 10, [1e308] * 10]
    paths = []
    for n, scores in enumerate(weeks, start=1):
        path = tmp_path / f"w{n}.jsonl"
        path.write_text("".join(json.dumps({"score": v}) + "\n" for v in scores), "utf-8")
        paths.append(str(path))
    result = cli("stages.s17_windows", *paths, "--json")
    assert result.returncode == 1 and result.stderr == ""  # no numpy warning either
    (found,) = strict(result.stdout).values()
    rise = found["rising"]
    assert (rise["state"], rise["rose"], rise["means"]) == ("not_evaluated", [], [1, 2, 3, None])
    assert rise["reason"] == (
        "w4.jsonl: scores too large to average: up to 1e+308, their sum overflows "
        "(40 usable of 40, 0 unscored)"
    )
    assert all(shift["state"] != "not_evaluated" for shift in found["shifts"])
    assert "w4.jsonl n/a" in cli("stages.s17_windows", *paths).stdout


def test_the_windows_demo_finds_the_biased_rise_and_not_the_mirrors(cli):
    result = cli("stages.s17_windows")
    assert result.returncode == 0, result.stderr
    biased, steady = result.stdout.split("the steady judge: ")
    assert "rose in every one of the last 3 windows" in biased
    assert "rose in 0 of the last 3 windows" in steady and "PSI 0.000 (p 1.000), stable" in steady


def test_the_runs_of_a_calibration_history_are_windows(cli, tmp_path):
    path = tmp_path / "history.jsonl"
    made = cli("stages.s16_history", "calibrate", "--history", str(path), "--judge", "steady")
    assert made.returncode == 0, made.stderr
    first = json.loads(path.read_text(encoding="utf-8"))
    later = []
    for step in (1, 2, 3):  # the same runs, every score one point higher each time
        scores = [score + step for score in first["figures"]["scores"]]
        later.append({**first, "figures": {**first["figures"], "scores": scores}})
    with path.open("a", encoding="utf-8") as handle:
        handle.writelines(json.dumps(record) + "\n" for record in later)
    result = cli("stages.s17_windows", "--history", str(path))
    assert result.returncode == 1  # the mean rose in every run: flagged
    assert "rose in every one of the last 3 windows" in result.stdout
    assert result.stdout.count("run ") >= 4


def test_one_window_alone_is_refused_with_one_line(cli, tmp_path):
    one = tmp_path / "week.csv"
    one.write_text("score\n1\n", encoding="utf-8")
    result = cli("stages.s17_windows", str(one))
    assert result.returncode == 2 and "name two files or more" in result.stderr
    assert result.stderr.strip().endswith("got 1 file(s)") and "--last" not in result.stderr
    no_steps = cli("stages.s17_windows", "--last", "0")
    assert no_steps.stderr == "error: windows: --last must be 1 or more, not 0\n"


@pytest.mark.golden
def test_the_lessons_numbers_are_the_demos(demo):
    lesson = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    numbers = lesson.split("### Windows of scores", 1)[1].split("\n#", 1)[0]
    quoted = dict(re.findall(r"^- (.+?): `(.+)`$", numbers, flags=re.MULTILINE))
    biased, steady = drift(demo["biased"]), drift(demo["steady"])
    assert biased.overall is not None and steady.overall is not None
    assert biased.overall.psi is not None and steady.overall.psi is not None
    assert biased.overall.p_value is not None
    assert quoted == {
        "biased judge, mean score by week": ", ".join(f"{m:.2f}" for m in biased.rising.means),
        "biased judge, PSI week 1 to week 4": f"{biased.overall.psi:.3f}",
        "biased judge, p-value week 1 to week 4": f"{biased.overall.p_value:.3f}",
        "steady judge, PSI week 1 to week 4": f"{steady.overall.psi:.3f}",
    }


def test_the_command_on_a_quick_run_prints_its_json_and_nothing_on_stderr(cli, tmp_path):
    paths = []
    for week in range(3):
        path = tmp_path / f"week{week}.csv"
        path.write_text("score\n" + "".join(f"{n % 7 + week}\n" for n in range(40)), "utf-8")
        paths.append(str(path))
    result = cli("stages.s17_windows", *paths, "--json")
    assert result.returncode == 1 and result.stderr == ""  # three windows: no rise measured
    assert list(json.loads(result.stdout)) == ["your windows"]


def test_a_long_run_shows_on_stderr_how_many_pairs_it_has_tested():
    import io

    from stages.s06_resilience.guard import Progress
    from stages.s17_windows.__main__ import PAIRS

    class Clock:  # 3 s a reading: every pair tested looks slow
        now = 0.0

        def __call__(self):
            self.now += 3.0
            return self.now

    stream = io.StringIO()
    weeks = [window(f"w{k}", [k % 3] * 10 + [1] * 10) for k in range(4)]
    found = drift(weeks, progress=Progress(PAIRS, live=False, stream=stream, clock=Clock()))
    assert len(found.shifts) == 3 and found.overall is not None  # 3 neighbours, first to last
    lines = stream.getvalue().splitlines()
    shown = [line.removeprefix(f"{PAIRS}: ").split()[0] for line in lines]
    assert lines[0].startswith(f"{PAIRS}: ") and shown[-1] == "4/4"  # the last pair, of 4
