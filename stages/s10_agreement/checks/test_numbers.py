"""The lesson's numbers, compared with a live run."""

from pathlib import Path

import pytest

from fakes.judges import BiasedJudge, SteadyJudge
from stages.s08_eval.judge import CountingJudge
from stages.s09_calibration.calibration import load_calibration
from stages.s09_calibration.checks.test_numbers import quoted
from stages.s09_calibration.report import number as _number
from stages.s09_calibration.twins import load_twins
from stages.s10_agreement.people import calibrate_against_people
from stages.s10_agreement.rubric_change import rubric_change
from stages.s10_agreement.rubrics import Rubric

STAGE = Path(__file__).resolve().parents[1]


@pytest.mark.golden
def test_the_lesson_quotes_the_numbers_of_a_live_run():
    cases = load_calibration()
    twins = load_twins(cases)
    biased = calibrate_against_people(CountingJudge(BiasedJudge(), "biased"), cases, twins)
    steady = calibrate_against_people(CountingJudge(SteadyJudge(), "steady"), cases, twins)
    checklist = calibrate_against_people(
        CountingJudge(BiasedJudge(), "biased"), cases, twins, rubric=Rubric.FACTS
    )
    change = rubric_change(biased, checklist)
    before, after = change.open, change.facts

    def kappa(run):
        c = run.calibration
        return f"{_number(c.kappa)} — {c.verdict}, {c.disagreements} disagreements"

    live = {
        "kappa, biased judge": kappa(biased),
        "kappa, steady judge": kappa(steady),
        "rubric change, biased judge (simulated)": (
            f"verbosity {_number(before.verbosity_mean_delta)} -> "
            f"{_number(after.verbosity_mean_delta)}, flips {before.flips} -> "
            f"{after.flips}, kappa {_number(before.kappa)} -> {_number(after.kappa)}"
        ),
    }
    assert quoted(STAGE) == live
