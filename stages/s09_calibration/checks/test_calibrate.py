"""What calibration finds: each detector on the judge that has the flaw, and on one that has not."""

import json
from pathlib import Path

import pytest

from fakes.judges import (
    BiasedJudge,
    FamilyJudge,
    NoisyJudge,
    ProseJudge,
    RateLimitedJudge,
    SilentJudge,
    SteadyJudge,
)
from stages.s08_eval.judge import CountingJudge
from stages.s09_calibration.calibrate import calibrate
from stages.s09_calibration.calibration import load_calibration
from stages.s09_calibration.twins import load_twins

STAGE = Path(__file__).resolve().parents[1]
CASES = load_calibration()
TWINS = load_twins(CASES)
MEASURES = ("verbosity", "concise", "pairwise", "self_preference")


@pytest.fixture(scope="module")
def measured():
    return {
        "biased": calibrate(CountingJudge(BiasedJudge(), "biased"), CASES, TWINS),
        "steady": calibrate(CountingJudge(SteadyJudge(), "steady"), CASES, TWINS),
        "family": calibrate(CountingJudge(FamilyJudge(), "family"), CASES, TWINS),
    }


def test_the_biased_judge_pays_for_padding_and_flips_at_the_gate(measured):
    verbosity = measured["biased"].verbosity
    assert verbosity.ci[0] > 0 and verbosity.verdict == "longer scores higher"
    assert verbosity.state == "found"
    assert verbosity.flips > 0 and verbosity.n == len(CASES)


@pytest.mark.failure_mode
def test_the_mirrored_half_finds_no_verbosity_bias_in_the_steady_judge(measured):
    for shift in (measured["steady"].verbosity, measured["steady"].concise):
        assert (shift.state, shift.flips, shift.mean_delta) == ("not_found", 0, 0.0)
        assert shift.verdict == "no shift"


def test_the_concise_twins_expose_a_judge_that_rewards_volume(measured):
    assert measured["biased"].concise.verdict == "rewards thoroughness by volume"


@pytest.mark.failure_mode
def test_a_verdict_counts_only_when_it_survives_the_swap(measured):
    biased, steady = measured["biased"].pairwise, measured["steady"].pairwise
    # equal answers: the biased judge always picks the first slot, so nothing survives
    assert (biased.swap_consistency, biased.tie) == (0.0, biased.pairs)
    assert steady.swap_consistency == 1.0
    assert biased.calls == 2 * biased.pairs
    # the finding, and its mirrored half: the steady judge's verdicts all survive, and it is
    # found to prefer nothing
    assert biased.state == "found" and biased.verdict == (
        f"prefers a slot: {biased.pairs} of {biased.pairs} verdicts change with the order"
    )
    assert (steady.state, steady.verdict) == ("not_found", "every verdict survives the swap")
    # equal answers of equal quality: a tie in both orders, which is a verdict that survives
    assert (steady.bullets, steady.prose, steady.tie) == (0, 0, steady.pairs)


def test_self_preference_is_found_in_the_family_judge(measured):
    found = measured["family"].self_preference
    assert found.state == "found" and found.ci[0] > 0 and found.gap is not None
    # the family judge favours bullets (fakes.judges.bullets_family_judge): the verdict says so
    assert found.verdict == (
        f"it scores bullets answers {found.gap:.1f} points higher than equal ones: use a judge "
        f"from another family, or discount its bullets scores by {found.gap:.1f}"
    )


@pytest.mark.failure_mode
def test_length_bias_is_not_mistaken_for_self_preference(measured):
    for judge in ("biased", "steady"):
        found = measured[judge].self_preference
        assert (found.state, found.verdict) == (
            "not_found", "no preference for either family's style at equal quality and length"
        )  # fmt: skip


@pytest.mark.failure_mode
def test_averaging_repeats_narrows_what_noise_alone_produces():
    def width(repeats):
        run = calibrate(CountingJudge(NoisyJudge(seed=2), "noisy"), CASES, TWINS, repeats=repeats)
        assert run.verbosity.ci is not None
        return run.verbosity.ci[1] - run.verbosity.ci[0], run.verbosity.flips

    (once, flips_once), (nine, flips_nine) = width(1), width(9)
    assert nine < once / 2  # nine scorings: the interval about a third as wide
    assert flips_nine <= flips_once


@pytest.mark.failure_mode
@pytest.mark.parametrize("judge", [ProseJudge(), SilentJudge(), RateLimitedJudge()])
def test_a_judge_with_no_usable_reply_leaves_every_measure_not_evaluated(judge):
    run = calibrate(CountingJudge(judge, "useless"), CASES, TWINS)
    assert run.not_evaluated() == list(MEASURES) == list(run.measures())
    # 48 answers and 96 twins scored 3 times each, and 24 pairs compared in both orders
    assert run.unscored.count == 3 * 3 * len(CASES) + 2 * 24 == run.judge.calls
    for name in MEASURES:
        measure = getattr(run, name)
        assert measure.verdict is None and measure.outcome.evidence.usable == 0
    assert run.verbosity.outcome.reason == (
        "too little usable data: 0 usable of 48, 48 unscored (needs at least 2 and 50%)"
    )


class ComparesInProse(SteadyJudge):
    """Scores like the steady judge; every comparison is a sentence nobody can read."""

    def compare(self, task, first, second):
        return "They are about the same, really."


@pytest.mark.failure_mode
def test_an_unreadable_comparison_is_unscored_never_a_tie():
    run = calibrate(CountingJudge(ComparesInProse(), "prose-compare"), CASES, TWINS)
    pairwise, evidence = run.pairwise, run.pairwise.outcome.evidence
    assert (pairwise.tie, evidence.usable, evidence.unscored) == (0, 0, 24)
    assert pairwise.state == "not_evaluated" and pairwise.swap_consistency is None
    assert run.unscored.count == 48  # both orders of 24 pairs, counted as unscored


class ScoresHalfTheTexts(SteadyJudge):
    """Answers in prose for every text longer than 200 characters: a biased sample survives."""

    def score(self, task, answer, reference):
        return "too long to grade" if len(answer) > 200 else super().score(task, answer, reference)


@pytest.mark.failure_mode
def test_a_measure_is_not_evaluated_below_half_of_its_data_whatever_the_rest_shows():
    run = calibrate(CountingJudge(ScoresHalfTheTexts(), "half"), CASES, TWINS)
    verbosity, evidence = run.verbosity, run.verbosity.outcome.evidence
    # only 4 of the 48 padded twins are 200 characters or shorter (their originals too): 4
    # pairs are scored both ways, and they are the shortest answers, not a random sample
    short = [c for c in CASES if len(TWINS[c.id].padded) <= 200 and len(c.answer) <= 200]
    assert evidence.usable == len(short) == 4 and evidence.total == 48
    assert verbosity.state == "not_evaluated" and verbosity.verdict is None


def test_the_command_prints_judge_and_control_side_by_side(cli, tmp_path):
    out = tmp_path / "r.json"
    result = cli("stages.s09_calibration", "report", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "judge: biased" in result.stdout and "control: steady" in result.stdout
    report = json.loads(out.read_text())
    assert report["judge"]["name"] == "biased" and report["control"]["judge"]["name"] == "steady"
    # what people's labels add comes later: this report holds the twins' measures only
    assert {"calibration", "length_confound", "rubric_change"}.isdisjoint(report)
