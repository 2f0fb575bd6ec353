"""The lesson's numbers, compared with a live run."""

import re
from pathlib import Path

import pytest

from fakes.judges import BiasedJudge, FamilyJudge, SteadyJudge
from stages.s08_eval.findings import MIN_SHARE, MIN_USABLE
from stages.s08_eval.judge import CountingJudge
from stages.s09_calibration.calibrate import calibrate, rubric_change
from stages.s09_calibration.calibration import families, load_calibration
from stages.s09_calibration.correction import pass_rate
from stages.s09_calibration.estimates import MIN_NORMAL
from stages.s09_calibration.report import interval as _interval
from stages.s09_calibration.report import number as _number
from stages.s09_calibration.rubrics import Rubric
from stages.s09_calibration.simulation import LESSON_SEED, World, coverage, simulate
from stages.s09_calibration.twins import load_twins

STAGE = Path(__file__).resolve().parents[1]


@pytest.mark.golden
def test_the_lesson_quotes_the_numbers_of_a_live_run():
    readme = (STAGE / "README.md").read_text()
    numbers = readme.split("### Numbers from a run", 1)[1].split("\n#", 1)[0]
    quoted = dict(re.findall(r"^- (.+?): `(.+)`$", numbers, flags=re.MULTILINE))
    cases = load_calibration()
    twins = load_twins(cases)
    run = {
        name: calibrate(CountingJudge(judge, name), cases, twins)
        for name, judge in (("biased", BiasedJudge()), ("steady", SteadyJudge()),
                            ("family", FamilyJudge()))
    }  # fmt: skip
    verbosity = run["biased"].verbosity

    def kappa(name):
        c = run[name].calibration
        return f"{_number(c.kappa)} — {c.verdict}, {c.disagreements} disagreements"

    selfpref = run["family"].self_preference
    checklist = calibrate(CountingJudge(BiasedJudge(), "biased"), cases, twins, rubric=Rubric.FACTS)
    change = rubric_change(run["biased"], checklist)
    before, after = change.open, change.facts
    live = {
        "calibration cases": f"{len(cases)}, {len(families(cases))} pairs",
        "biased verbosity": f"mean delta {_number(verbosity.mean_delta)} "
        f"{_interval(verbosity.ci)}, {verbosity.flips} of {verbosity.n} flip — "
        f"{verbosity.verdict}",
        "biased pairwise swap consistency": _number(run["biased"].pairwise.swap_consistency),
        "kappa, biased judge": kappa("biased"),
        "kappa, steady judge": kappa("steady"),
        "family judge self-preference gap": (f"{_number(selfpref.gap)} {_interval(selfpref.ci)}"),
        "judge calls per report, each side": str(run["biased"].judge.calls),
        "rubric change, biased judge (simulated)": (
            f"verbosity {_number(before.verbosity_mean_delta)} -> "
            f"{_number(after.verbosity_mean_delta)}, flips {before.flips} -> "
            f"{after.flips}, kappa {_number(before.kappa)} -> {_number(after.kappa)}"
        ),
    }
    live |= corrected_numbers(run["steady"].calibration.pass_rate)
    assert quoted == live


def figures(estimates):
    return ", ".join(f"{e.method} {e.value:.3f} [{e.ci[0]:.3f}, {e.ci[1]:.3f}]" for e in estimates)


def corrected_numbers(steady):
    world = World()
    drawn = pass_rate(simulate(world, LESSON_SEED))
    assert (world.cases, world.labelled, world.rate) == (4000, 600, 0.714)
    shares = coverage(world, range(1000))
    return {
        "calibration set pass rate, steady judge": figures(steady),
        f"simulated world (seed {LESSON_SEED}), 4,000 cases, 600 labelled, truth 0.714": figures(
            drawn
        ),
        "share of 1,000 draws whose 95% interval contains the truth": ", ".join(
            f"{e.method} {shares[e.method]:.1%}" for e in drawn
        ),
    }


def test_the_lesson_quotes_the_minimum_the_code_uses():
    lesson = " ".join((STAGE / "README.md").read_text().split())
    assert f"at least {MIN_USABLE} usable items and at least {MIN_SHARE:.0%} of those" in lesson
    assert f"fewer than {MIN_NORMAL} labels for PPI++" in lesson


@pytest.mark.golden
def test_the_lesson_s_prose_about_the_corrected_rate_is_the_run_s():
    lesson = " ".join((STAGE / "README.md").read_text().split())
    cases = load_calibration()
    biased = calibrate(CountingJudge(BiasedJudge(), "biased"), cases, load_twins(cases))
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
