"""What people's labels find: the length confound and the agreement with people, each on
the judge that has the flaw and on the one that has not."""

from pathlib import Path

import pytest

from fakes.judges import (
    BiasedJudge,
    SteadyJudge,
)
from stages.s08_eval.judge import CountingJudge
from stages.s08_eval.levels import PASS_MARK
from stages.s09_calibration.calibration import load_calibration
from stages.s09_calibration.twins import load_twins
from stages.s10_agreement.people import calibrate_against_people

STAGE = Path(__file__).resolve().parents[1]
CASES = load_calibration()
TWINS = load_twins(CASES)


@pytest.fixture(scope="module")
def measured():
    return {
        "biased": calibrate_against_people(CountingJudge(BiasedJudge(), "biased"), CASES, TWINS),
        "steady": calibrate_against_people(CountingJudge(SteadyJudge(), "steady"), CASES, TWINS),
    }


@pytest.mark.failure_mode
def test_a_correlation_with_length_is_found_in_the_steady_judge_and_not_in_the_biased(measured):
    # the lesson: the steady judge shows a confound here, longer answers scoring lower,
    # because this set's long answers are its wordy wrong ones
    steady = measured["steady"].length_confound
    assert steady.state == "found" and steady.verdict == "longer answers score lower"
    assert steady.ci is not None and steady.ci[1] < 0 and steady.spearman is not None
    lesson = " ".join((STAGE / "README.md").read_text(encoding="utf-8").split())
    assert "The steady judge shows one here — longer answers score lower" in lesson
    # and the judge that does pay for length shows none: a correlation is no test of a bias
    biased = measured["biased"].length_confound
    assert (biased.state, biased.verdict) == ("not_found", "the score does not follow the length")
    assert biased.ci is not None and biased.ci[0] < 0 < biased.ci[1]


def test_kappa_separates_the_steady_judge_from_the_biased_one(measured):
    assert measured["steady"].calibration.trustworthy is True
    assert measured["biased"].calibration.trustworthy is False
    queue = measured["biased"].calibration.queue
    assert len(queue) == measured["biased"].calibration.disagreements > 0
    assert {"question", "answer", "human_score", "judge_score", "reason"} <= set(queue[0].to_json())
    # each entry says which way the judge erred, read here from its score and the person's label
    ways = {
        (True, False): "the judge passes what a person failed",
        (False, True): "the judge fails what a person passed",
    }
    for entry in queue:
        judged, person = entry.judge_score >= PASS_MARK, entry.case.human_pass
        assert entry.disagreement == ways[(judged, person)], entry.case.id
    # the biased judge over-passes: its queue holds passes people failed, and no other kind
    assert {entry.disagreement for entry in queue} == {"the judge passes what a person failed"}
