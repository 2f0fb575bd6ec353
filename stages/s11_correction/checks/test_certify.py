"""The certified gate: each rule read from people's labels is passed, failed or not enough
labels by where its whole interval lies; a good judge measured on few labels is never
passed, and the same judge well measured is."""

import json

import numpy as np
import pytest

from stages.s08_eval.findings import Evidence
from stages.s10_agreement.agreement import trust
from stages.s10_agreement.gate import KAPPA
from stages.s10_agreement.kappa import cohen_kappa
from stages.s11_correction.certify import (
    TNR,
    TPR,
    Bound,
    Certified,
    load_limits,
    people_rules,
    read_bound,
)
from stages.s11_correction.estimates import wilson

LIMITS = Certified(True, 0.05, 0.6, min_true_positive=0.8, min_true_negative=0.8)
SHORT = "not evaluated (not enough labels: "


def simulated(labels: int, rate: float = 0.9, seed: int = 11) -> list[tuple[bool, bool]]:
    """A judge whose true-positive and true-negative rates are both `rate`, on `labels`
    answers half of which people passed: (the person's pass, the judge's) for each."""
    rng = np.random.default_rng(seed)
    people = [i < labels // 2 for i in range(labels)]
    right = rng.random(labels) < rate
    return [(person, person == bool(hit)) for person, hit in zip(people, right, strict=True)]


def rules_of(labelled: list[tuple[bool, bool]]):
    people, judge = [p for p, _ in labelled], [j for _, j in labelled]
    calibration = trust(cohen_kappa(people, judge), Evidence(len(labelled), len(labelled)))
    return people_rules(calibration, labelled, LIMITS)


@pytest.mark.parametrize(
    ("ci", "bound"),
    [
        ((0.80, 0.95), Bound.PASSED),  # the lower bound at the bar clears it
        ((0.81, 0.95), Bound.PASSED),
        ((0.79, 0.95), Bound.SHORT),
        ((0.50, 0.80), Bound.SHORT),  # the upper bound at the bar: it could still be there
        ((0.50, 0.79), Bound.FAILED),
    ],
)
def test_the_whole_interval_is_read_against_the_bar(ci, bound):
    assert read_bound(ci, 0.8) == bound


def test_a_good_judge_well_measured_passes_and_on_few_labels_is_not_enough_labels():
    well = rules_of(simulated(400))
    assert [(rule.name, rule.passed) for rule in well] == [(KAPPA, True), (TPR, True), (TNR, True)]
    few = rules_of(simulated(20))
    assert [rule.passed for rule in few] == [False] * 3
    assert all(rule.value.startswith(SHORT) for rule in few), [r.value for r in few]
    assert [rule.value.split(" from ")[1].split(" labels")[0] for rule in few] == ["20", "10", "10"]


def test_no_draw_of_20_labels_certifies_the_good_judge():
    # With 10 labels a class, even 10 right of 10 leaves Wilson's lower bound at 0.72: the
    # rates cannot clear 0.80, whatever the draw. (Kappa alone can: a perfect draw leaves the
    # bootstrap nothing to vary, and its interval is [1, 1].)
    assert wilson(10, 10)[0] < 0.8
    for seed in range(40):
        rates = rules_of(simulated(20, seed=seed))[1:]
        assert not any(rule.passed for rule in rates), seed


def test_a_poor_judge_well_measured_fails_rather_than_lacking_labels():
    poor = rules_of(simulated(400, rate=0.6))
    assert [rule.passed for rule in poor] == [False] * 3
    assert not any(rule.value.startswith("not evaluated") for rule in poor)


def test_the_rates_count_each_class_and_name_their_intervals():
    labelled = [(True, True)] * 18 + [(True, False)] * 2 + [(False, False)] * 25 + [(False, True)]
    _, tpr, tnr = rules_of(labelled)
    low, high = wilson(18, 20)
    assert tpr.value == f"{SHORT}0.90 [{low:.2f}, {high:.2f}] from 20 labels straddles 0.80)"
    low, high = wilson(25, 26)
    assert (tnr.value, tnr.passed) == (f"0.96 [{low:.2f}, {high:.2f}] from 26 labels", True)
    assert tnr.limit == "lower bound at least 0.80"


@pytest.mark.failure_mode
def test_no_labels_of_a_class_is_not_evaluated_never_passed():
    only_passes = [(True, True)] * 30
    rules = rules_of(only_passes)
    assert not any(rule.passed for rule in rules)
    nothing = people_rules(trust(cohen_kappa([], []), Evidence(0, 48)), [], LIMITS)
    assert [rule.passed for rule in nothing] == [False] * 3
    assert all(rule.value.startswith("not evaluated (too little usable data") for rule in nothing)


@pytest.mark.parametrize(
    ("judge", "status", "outcomes"),
    [
        ("fakes.judges:PeopleJudge", 0, ["pass", "pass", "pass"]),
        ("steady", 1, ["short", "pass", "short"]),
        ("biased", 1, ["FAIL", "pass", "FAIL"]),
    ],
)
def test_each_fake_judge_gets_one_outcome_per_rule_on_the_course_labels(
    cli, judge, status, outcomes
):
    result = cli("stages.s11_correction", "gate", "--judge", judge, "--json")
    shown = json.loads(result.stdout)
    assert (result.returncode, shown["passed"]) == (status, status == 0)
    read = [rule for rule in shown["rules"] if rule["name"] in (KAPPA, TPR, TNR)]
    found = [
        "pass" if rule["passed"] else "short" if rule["value"].startswith(SHORT) else "FAIL"
        for rule in read
    ]
    assert found == outcomes


def test_the_shipped_gate_config_holds_the_anchor_bars():
    assert load_limits() == LIMITS


@pytest.mark.failure_mode
def test_a_config_without_the_rates_bars_names_the_first_it_lacks(cli, one_line_error):
    from stages.s10_agreement.gate import GATE_FILE as STAGE_10_GATE

    result = cli("stages.s11_correction", "gate", "--config", str(STAGE_10_GATE))
    one_line_error(result, "min_true_positive must be float, got nothing (it is missing)")
