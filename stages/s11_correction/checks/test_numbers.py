"""The lesson's numbers, compared with a live run."""

import re
from pathlib import Path

import pytest

from fakes.judges import BiasedJudge, SteadyJudge
from stages.s08_eval.judge import CountingJudge
from stages.s08_eval.specs import resolve
from stages.s09_calibration.calibration import load_calibration
from stages.s09_calibration.checks.test_numbers import quoted
from stages.s09_calibration.twins import load_twins
from stages.s10_agreement.commands import measure_gate
from stages.s10_agreement.structured import Reply
from stages.s11_correction.certify import judge_gate, load_limits
from stages.s11_correction.corrected_run import calibrate_and_correct
from stages.s11_correction.correction import pass_rate
from stages.s11_correction.estimates import MIN_NORMAL
from stages.s11_correction.simulation import LESSON_SEED, World, coverage, simulate

STAGE = Path(__file__).resolve().parents[1]
CASES = load_calibration()


def figures(estimates):
    return ", ".join(f"{e.method} {e.value:.3f} [{e.ci[0]:.3f}, {e.ci[1]:.3f}]" for e in estimates)


def gate_line(spec: str) -> str:
    """The certified rules of the gate's run, as the lesson quotes them."""
    rules = judge_gate(measure_gate(resolve(spec), Reply.BARE), load_limits())[2:]
    shown = []
    for label, rule in zip(("kappa", "true-positive", "true-negative"), rules, strict=True):
        figure = re.search(r"-?\d\.\d\d \[-?\d\.\d\d, -?\d\.\d\d\]", rule.value)
        assert figure is not None, rule.value
        short = rule.value.startswith("not evaluated (not enough labels")
        outcome = "passed" if rule.passed else "not enough labels" if short else "failed"
        shown.append(f"{label} {figure[0]} {outcome}")
    return "; ".join(shown)


@pytest.mark.golden
def test_the_lesson_quotes_the_numbers_of_a_live_run():
    steady = calibrate_and_correct(CountingJudge(SteadyJudge(), "steady"), CASES, load_twins(CASES))
    world = World()
    drawn = pass_rate(simulate(world, LESSON_SEED))
    assert (world.cases, world.labelled, world.rate) == (4000, 600, 0.714)
    shares = coverage(world, range(1000))
    live = {
        "gate, biased judge": gate_line("biased"),
        "gate, steady judge": gate_line("steady"),
        "gate, people judge": gate_line("fakes.judges:PeopleJudge"),
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


@pytest.mark.golden
def test_the_lesson_s_prose_about_the_certified_gate_is_the_run_s():
    lesson = " ".join((STAGE / "README.md").read_text(encoding="utf-8").split())
    run = measure_gate(resolve("steady"), Reply.BARE)
    people = [case.human_pass for case in CASES]
    kappa, rates = run.calibration.kappa, judge_gate(run, load_limits())[3:]
    low, high = (float(x) for x in re.findall(r"\[(\S+), (\S+)\]", gate_line("steady"))[0])
    assert f"Stage 10's gate passed the steady judge on a kappa of {kappa:.2f}" in lesson
    assert f"measured on {len(CASES)} labels. Its interval runs from {low:.2f} to {high:.2f}" in (
        lesson
    )
    assert f"{sum(people)} passes and {len(people) - sum(people)} fails" in lesson
    points = [rule.value.split("enough labels: ")[-1].split(" ")[0] for rule in rates]
    assert points[0] == "1.00" and f"({kappa:.2f} and {points[1]})" in lesson
