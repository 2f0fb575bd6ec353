"""The lesson's numbers, compared with a live run."""

import re
from pathlib import Path

import pytest

from fakes.judges import BiasedJudge, SteadyJudge
from stages.s08_eval.judge import CountingJudge
from stages.s09_calibration.calibration import load_calibration
from stages.s09_calibration.checks.test_numbers import quoted
from stages.s09_calibration.twins import load_twins
from stages.s11_correction.corrected_run import calibrate_and_correct
from stages.s11_correction.correction import pass_rate
from stages.s11_correction.estimates import MIN_NORMAL
from stages.s11_correction.simulation import LESSON_SEED, World, coverage, simulate

STAGE = Path(__file__).resolve().parents[1]
CASES = load_calibration()


def figures(estimates):
    return ", ".join(f"{e.method} {e.value:.3f} [{e.ci[0]:.3f}, {e.ci[1]:.3f}]" for e in estimates)


@pytest.mark.golden
def test_the_lesson_quotes_the_numbers_of_a_live_run():
    steady = calibrate_and_correct(CountingJudge(SteadyJudge(), "steady"), CASES, load_twins(CASES))
    world = World()
    drawn = pass_rate(simulate(world, LESSON_SEED))
    assert (world.cases, world.labelled, world.rate) == (4000, 600, 0.714)
    shares = coverage(world, range(1000))
    live = {
        "calibration set pass rate, steady judge": figures(steady.calibration.pass_rate),
        f"simulated world (seed {LESSON_SEED}), 4,000 cases, 600 labelled, truth 0.714": figures(
            drawn
        ),
        "share of 1,000 draws whose 95% interval contains the truth": ", ".join(
            f"{e.method} {shares[e.method]:.1%}" for e in drawn
        ),
    }
    assert quoted(STAGE) == live


def test_the_lesson_quotes_the_minimum_the_code_uses():
    lesson = " ".join((STAGE / "README.md").read_text(encoding="utf-8").split())
    assert f"fewer than {MIN_NORMAL} labels for PPI++" in lesson


@pytest.mark.golden
def test_the_lesson_s_prose_about_the_corrected_rate_is_the_run_s():
    lesson = " ".join((STAGE / "README.md").read_text(encoding="utf-8").split())
    biased = calibrate_and_correct(CountingJudge(BiasedJudge(), "biased"), CASES, load_twins(CASES))
    refused = biased.calibration.pass_rate[2]
    rates = re.search(r"TPR (\d\.\d\d) \+ TNR (\d\.\d\d)", refused.reason)
    assert rates is not None and not refused.evaluated
    assert (
        f"for the biased judge (TPR {rates[1]}, TNR {rates[2]}) Rogan\u2013Gladen is not" in lesson
    )
    world, judge_only = World(), pass_rate(simulate(World(), LESSON_SEED))[0]
    assert (
        f"{world.cases:,} cases of which {world.rate:.1%} truly pass, a judge that passes "
        f"{world.tpr:.0%} of those and wrongly passes {1 - world.tnr:.0%} of the rest, and "
        f"people labelling {world.labelled} cases"
    ) in lesson
    assert f"the judge alone says {judge_only.value:.3f}" in lesson
    assert f"(TPR + TNR \u2212 1 \u2248 {world.tpr + world.tnr - 1:.2f})" in lesson
