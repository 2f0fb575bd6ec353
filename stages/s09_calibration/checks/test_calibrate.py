"""What calibration finds: each detector on the judge that has the flaw, and on one that has not."""

import pytest

from fakes.judges import BiasedJudge, FamilyJudge, NoisyJudge, SteadyJudge
from stages.s08_eval.judge import CountingJudge
from stages.s09_calibration.calibrate import calibrate
from stages.s09_calibration.calibration import load_calibration, load_twins

CASES, TWINS = load_calibration(), load_twins()


@pytest.fixture(scope="module")
def measured():
    return {
        "biased": calibrate(CountingJudge(BiasedJudge(), "biased"), CASES, TWINS),
        "steady": calibrate(CountingJudge(SteadyJudge(), "steady"), CASES, TWINS),
        "family": calibrate(CountingJudge(FamilyJudge(), "family"), CASES, TWINS),
    }


def test_the_biased_judge_pays_for_padding_and_flips_at_the_gate(measured):
    verbosity = measured["biased"]["verbosity"]
    assert verbosity["ci"][0] > 0 and verbosity["bias"] == "longer scores higher"
    assert verbosity["flips"] > 0 and verbosity["n"] == len(CASES)


@pytest.mark.failure_mode
def test_the_mirrored_half_finds_no_verbosity_bias_in_the_steady_judge(measured):
    for key in ("verbosity", "concise"):
        shift = measured["steady"][key]
        assert (shift["bias"], shift["flips"], shift["mean_delta"]) == ("none", 0, 0.0)


def test_the_concise_twins_expose_a_judge_that_rewards_volume(measured):
    assert measured["biased"]["concise"]["bias"] == "rewards thoroughness by volume"


@pytest.mark.failure_mode
def test_a_verdict_counts_only_when_it_survives_the_swap(measured):
    biased, steady = measured["biased"]["pairwise"], measured["steady"]["pairwise"]
    # equal answers: the biased judge always picks the first slot, so nothing survives
    assert (biased["swap_consistency"], biased["tie"]) == (0.0, biased["pairs"])
    assert steady["swap_consistency"] == 1.0
    assert biased["calls"] == 2 * biased["pairs"]


def test_self_preference_is_found_in_the_family_judge(measured):
    found = measured["family"]["self_preference"]
    assert found["found"] and found["ci"][0] > 0
    assert "use a judge from another family" in found["recommendation"]


@pytest.mark.failure_mode
def test_length_bias_is_not_mistaken_for_self_preference(measured):
    assert measured["biased"]["self_preference"]["found"] is False
    assert measured["steady"]["self_preference"]["found"] is False


def test_kappa_separates_the_steady_judge_from_the_biased_one(measured):
    assert measured["steady"]["calibration"]["trustworthy"] is True
    assert measured["biased"]["calibration"]["trustworthy"] is False
    queue = measured["biased"]["calibration"]["queue"]
    assert len(queue) == measured["biased"]["calibration"]["disagreements"] > 0
    assert {"question", "answer", "human_score", "judge_score", "reason"} <= set(queue[0])


@pytest.mark.failure_mode
def test_averaging_repeats_narrows_what_noise_alone_produces():
    def width(repeats):
        shift = calibrate(CountingJudge(NoisyJudge(seed=2), "noisy"), CASES, TWINS, repeats=repeats)
        return shift["verbosity"]["ci"][1] - shift["verbosity"]["ci"][0], shift["verbosity"][
            "flips"
        ]

    (once, flips_once), (nine, flips_nine) = width(1), width(9)
    assert nine < once / 2  # nine scorings: the interval about a third as wide
    assert flips_nine <= flips_once


def test_the_command_prints_judge_and_control_side_by_side(cli, tmp_path):
    out = tmp_path / "r.json"
    result = cli("stages.s09_calibration", "report", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "judge: biased" in result.stdout and "control: steady" in result.stdout
    assert out.with_suffix(".review.jsonl").read_text().count("\n") > 0
