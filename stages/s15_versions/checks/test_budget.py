"""The label budget and the smallest change: each figure the command prints is held to a
seeded simulation of what it promises, within a stated tolerance."""

import json
import math
import re

import numpy as np
import pytest

from stages.s11_correction.estimates import Moments, prediction_powered, wilson
from stages.s15_versions.budget import (
    LABELS,
    POWER,
    curve,
    labels_needed,
    smallest_change,
)

STAGE_PLOT = "stages/s15_versions/label_budget.png"
# The normal approximation against the binomial it stands for: the share of draws whose
# lower bound clears the bar is within this of the 80% promised, for a rate between the bar
# and 1 (a rate of exactly 1 always clears it: a record of n right of n is not drawn).
TOLERANCE = 0.05


def cleared(true: float, bar: float, labels: int, draws: int = 20_000, seed: int = 15) -> float:
    """The share of seeded draws of `labels` labels whose Wilson lower bound clears `bar`."""
    rng = np.random.default_rng(seed)
    hits = rng.binomial(labels, true, draws)
    clears = {k: wilson(k, labels)[0] >= bar for k in set(hits.tolist())}
    return float(np.mean([clears[k] for k in hits.tolist()]))


@pytest.mark.parametrize(("true", "bar"), [(0.85, 0.8), (0.9, 0.8), (0.95, 0.8), (0.7, 0.6)])
def test_the_labels_budgeted_clear_the_bar_as_often_as_promised(true, bar):
    needed = labels_needed(true, bar)
    assert needed is not None
    assert abs(cleared(true, bar, needed) - POWER) <= TOLERANCE
    # and the budget is not padded: a quarter fewer labels clear it clearly less often
    assert cleared(true, bar, math.floor(needed * 0.75)) < POWER - TOLERANCE / 2


def test_a_perfect_record_needs_the_labels_that_lift_wilsons_bound_to_the_bar():
    needed = labels_needed(1.0, 0.8)
    assert (
        needed is not None and wilson(needed, needed)[0] >= 0.8 > wilson(needed - 1, needed - 1)[0]
    )


@pytest.mark.failure_mode
@pytest.mark.parametrize("true", [0.8, 0.69, 0.0])
def test_a_rate_not_above_its_bar_is_never_budgeted(true):
    assert labels_needed(true, 0.8) is None


def ppi_difference(labelled: int, runs: int, rates, rate: float, change: float, rng) -> float:
    """One simulated comparison: each version's pass rate by PPI++ over `labelled` of `runs`
    scored runs, the judge with these rates; the z of version B minus version A."""
    estimates = []
    for truth in (rate, rate + change):
        people = rng.random(runs) < truth
        right = rng.random(runs) < np.where(people, rates[0], rates[1])
        judge = np.where(right, people, ~people).astype(float)
        seen, judged = people[:labelled].tolist(), judge.tolist()
        found = prediction_powered(
            Moments.of(seen, judged[:labelled]), Moments.judged(judged[labelled:])
        )
        assert found.value is not None and found.error is not None
        estimates.append((found.value, found.error))
    (a, error_a), (b, error_b) = estimates
    return (b - a) / math.hypot(error_a, error_b)


@pytest.mark.parametrize(("labelled", "rates"), [(100, (0.9, 0.9)), (200, (0.8, 0.7))])
def test_the_smallest_change_is_found_as_often_as_promised(labelled, rates):
    change = smallest_change(labelled, 1000, rates, 0.5)
    assert change is not None
    rng = np.random.default_rng(16)
    found = [
        abs(ppi_difference(labelled, 1000, rates, 0.5, change, rng)) > 1.96 for _ in range(600)
    ]
    assert abs(np.mean(found) - POWER) <= 0.06


def test_a_judge_no_better_than_chance_leaves_the_people_alone():
    people_only = (1.96 + 0.8416) * math.sqrt(2 * 0.25 / 100)
    assert smallest_change(100, 1000, (0.5, 0.5), 0.5) == pytest.approx(people_only, abs=1e-3)
    narrowed = smallest_change(100, 1000, (0.9, 0.9), 0.5)
    assert narrowed is not None and narrowed < people_only  # a good judge narrows it
    assert smallest_change(100, 1000, (1.0, 0.0), 0.5) is None  # it passes everything


def test_the_command_prints_the_budget_of_the_rates_it_was_given(cli):
    result = cli("stages.s15_versions", "budget", "--rates", "0.9", "0.9", "--json")
    shown = json.loads(result.stdout)
    assert result.returncode == 0
    share = shown["pass_share"]
    assert shown["rates"]["true-positive"]["of_class"] == labels_needed(0.9, 0.8)
    assert shown["rates"]["true-positive"]["labels"] == math.ceil(labels_needed(0.9, 0.8) / share)
    assert shown["gate"] == max(entry["labels"] for entry in shown["rates"].values())
    assert [c["labels"] for c in shown["changes"]] == list(LABELS)
    assert shown["changes"][2]["change"] == smallest_change(100, 1000, (0.9, 0.9), share)


@pytest.mark.failure_mode
def test_a_judge_whose_rate_is_below_its_bar_is_never_certified_and_says_so(cli):
    result = cli("stages.s15_versions", "budget", "--judge", "steady")
    assert result.returncode == 1
    assert "  true-negative rate 0.69, bar 0.80: never:" in result.stdout
    assert "  both rates: never" in result.stdout


@pytest.mark.failure_mode
def test_rates_that_could_not_be_measured_are_one_line_and_exit_1(cli):
    from stages.s09_calibration.calibration import load_calibration

    passed = sum(case.human_pass for case in load_calibration())
    result = cli("stages.s15_versions", "budget", "--judge", "fakes.judges:ProseJudge")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        "error: the rates of fakes.judges:ProseJudge were not measured: the judge scored none "
        f"of the {passed} answers people passed\n"
    )


@pytest.mark.failure_mode
@pytest.mark.parametrize(("given", "said"), [("1.2", ": a rate is a share from 0 to 1"),
                                             ("most", " is not a number")])  # fmt: skip
def test_a_rate_outside_zero_to_one_is_refused(cli, given, said):
    result = cli("stages.s15_versions", "budget", "--rates", given, "0.9")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("usage: python -m stages.s15_versions budget ")
    assert result.stderr.endswith(f"budget: error: argument --rates: '{given}'{said}\n")


def test_the_lessons_plot_is_drawn_from_the_steady_judges_rates_as_the_command_measures_them(
    cli,
):
    from PIL import Image

    from stages.s01_model.cli import ROOT

    measured = json.loads(cli("stages.s15_versions", "budget", "--json").stdout)
    drawn = json.loads(Image.open(ROOT / STAGE_PLOT).info["Description"])
    assert drawn == {
        "rates": {name: entry["rate"] for name, entry in measured["rates"].items()},
        "bars": {name: entry["bar"] for name, entry in measured["rates"].items()},
    }
    assert curve(1.0)[0] < 0.8 <= curve(1.0)[-1]  # the curve the lesson describes crosses it


def lesson_section() -> str:
    from stages.s01_model.cli import ROOT

    text = (ROOT / "stages/s15_versions/README.md").read_text(encoding="utf-8")
    return text.split("### How many labels", 1)[1].split("\n### ", 1)[0]


def said(entry) -> str:
    head = f"{entry['rate']:.2f}, bar {entry['bar']:.2f}: "
    return head + ("never" if entry["labels"] is None else f"{entry['labels']} labels")


@pytest.mark.golden
def test_the_lesson_quotes_the_budgets_of_a_live_run(cli):
    steady = json.loads(cli("stages.s15_versions", "budget", "--json").stdout)["rates"]
    runs = cli("stages.s15_versions", "budget", "--rates", "0.9", "0.9", "--json").stdout
    assumed = json.loads(runs)
    tpr, tnr = assumed["rates"]["true-positive"], assumed["rates"]["true-negative"]
    change = {c["labels"]: c["change"] for c in assumed["changes"]}
    live = {
        "steady judge, true-positive rate": said(steady["true-positive"])
        + f" ({steady['true-positive']['of_class']} that people passed)",
        "steady judge, true-negative rate": said(steady["true-negative"]),
        "rates assumed 0.90 and 0.90": f"{tpr['labels']} labels ({tpr['of_class']} that people "
        f"passed), {tnr['labels']} labels ({tnr['of_class']} that people failed); both rates: "
        f"{assumed['gate']} labels",
        f"smallest change, rates 0.90 and 0.90, {assumed['runs']} runs of each": (
            f"{change[25]:.2f} at 25 labels each, {change[100]:.2f} at 100, "
            f"{change[400]:.2f} at 400"
        ),
    }
    quoted = dict(re.findall(r"^- (.+?): `(.+)`$", lesson_section(), flags=re.MULTILINE))
    assert quoted == live


@pytest.mark.golden
def test_the_lessons_prose_about_the_budget_is_the_run_s(cli):
    from stages.s09_calibration.calibration import load_calibration

    lesson = " ".join(lesson_section().split())
    steady = json.loads(cli("stages.s15_versions", "budget", "--json").stdout)
    tnr, share = steady["rates"]["true-negative"]["rate"], steady["pass_share"]
    failed = [case for case in load_calibration() if not case.human_pass]
    right = round(tnr * len(failed))
    assert f"crosses 0.80 at {steady['rates']['true-positive']['of_class']} labels" in lesson
    assert f"the true-negative rate, {tnr:.2f}, never does" in lesson
    assert f"{right} of {len(failed)} could come from a judge as good as " in lesson
    assert f"as good as {wilson(right, len(failed))[1]:.2f}, and {len(failed)} labels" in lesson
    alone = smallest_change(100, 1000, (0.5, 0.5), share)
    good = smallest_change(100, 1000, (0.9, 0.9), share)
    assert (
        f"at 100 labels each a change of {alone:.2f}; one with both rates at 0.90 narrows "
        f"that to {good:.2f}" in lesson
    )
    assert f"{1.96 + 0.8416:.1f} standard errors of the difference" in lesson


@pytest.mark.failure_mode
def test_a_judge_on_the_wire_that_cannot_be_reached_is_one_line_naming_why(cli, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens there
    monkeypatch.setenv("OPENAI_API_KEY", "sk-budget-not-a-key")
    result = cli("stages.s15_versions", "budget", "--judge", "openai:m")
    assert (result.returncode, result.stdout) == (1, "")
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: the rates of openai:m were not ")
    assert "the judge is unavailable after 3 failed calls in a row" in lines[0]
    assert "sk-budget-not-a-key" not in result.stderr
