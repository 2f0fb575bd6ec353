"""The calibration gate: each rule at its threshold; a rule whose measure is not evaluated
fails."""

import json
from dataclasses import replace

import pytest

from stages.s01_model.errors import CourseInputError
from stages.s08_eval.findings import Evidence, Finding, Outcome
from stages.s09_calibration.measures import TwinShift
from stages.s10_agreement.agreement import Trust
from stages.s10_agreement.gate import Thresholds, judge_gate, load_gate

CONFIG = Thresholds(fail_on_verbosity_bias=True, max_flip_rate=0.05, min_kappa=0.6)


def measured(flips=0, n=40, shift="not_found", kappa=0.7) -> tuple[TwinShift, Trust]:
    """What the gate reads of a calibration: no data (n = 0, kappa None) is not evaluated."""

    def outcome(state):
        return Outcome(Finding(state), "too little usable data", Evidence(n, 40))

    shift_state = "not_evaluated" if n == 0 else shift
    verbosity = TwinShift(outcome(shift_state), "", n, 3, None, None, None, flips)
    people = outcome("not_evaluated" if kappa is None else "not_found")
    return verbosity, Trust(people, "", kappa, None, None, None)


def test_the_gate_fails_the_biased_judge_and_passes_the_steady_one(cli):
    biased = cli("stages.s10_agreement", "gate")
    assert biased.returncode == 1
    assert biased.stdout.count("  FAIL  ") == 3 and "FAILED: 0 of 3 rules" in biased.stdout
    steady = cli("stages.s10_agreement", "gate", "--judge", "steady")
    assert steady.returncode == 0 and "passed: 3 of 3 rules" in steady.stdout


@pytest.mark.parametrize(("judge", "status"), [("steady", 0), ("biased", 1)])
def test_the_gates_json_holds_each_rule_as_printed_and_its_verdict_is_the_exit(cli, judge, status):
    text = cli("stages.s10_agreement", "gate", "--judge", judge)
    result = cli("stages.s10_agreement", "gate", "--judge", judge, "--json")
    shown = json.loads(result.stdout)  # one object, nothing printed beside it
    assert set(shown) == {"judge", "unscored", "config", "rules", "passed"}  # the lesson's keys
    assert (result.returncode, text.returncode, shown["passed"]) == (status, status, status == 0)
    printed = [line for line in text.stdout.splitlines() if line.startswith(("  pass", "  FAIL"))]
    assert printed == [
        f"  {'pass' if rule['passed'] else 'FAIL'}  {rule['name']}: {rule['value']} — "
        f"{rule['limit']}"
        for rule in shown["rules"]
    ]
    calls, unscored = shown["judge"]["calls"], shown["unscored"]["count"]
    assert f"  {calls} calls, {unscored} unscored" in text.stdout
    assert (shown["judge"]["name"], shown["config"]) == (judge, "stages/s10_agreement/gate.toml")


@pytest.mark.parametrize(
    ("case", "passes"),
    [
        (measured(), [True, True, True]),
        (measured(flips=2, n=40), [True, True, True]),  # 2 / 40 = 0.05: at the limit passes
        (measured(flips=3, n=40), [True, False, True]),
        (measured(kappa=0.6), [True, True, True]),  # at the bar passes
        (measured(kappa=0.59), [True, True, False]),
        (measured(shift="found"), [False, True, True]),
    ],
)
def test_each_rule_at_and_beyond_its_threshold(case, passes):
    verbosity, calibration = case
    assert [rule.passed for rule in judge_gate(verbosity, calibration, CONFIG)] == passes


@pytest.mark.failure_mode
def test_nothing_measured_or_kappa_undefined_cannot_pass_the_gate():
    unmeasured = judge_gate(*measured(n=0), CONFIG)
    assert [r.passed for r in unmeasured] == [False, False, True]
    assert unmeasured[1].value == "not evaluated (too little usable data)"
    assert [r.passed for r in judge_gate(*measured(kappa=None), CONFIG)] == [True, True, False]
    # a rule switched off stays off, measured or not
    relaxed = replace(CONFIG, fail_on_verbosity_bias=False)
    assert [r.passed for r in judge_gate(*measured(n=0), relaxed)] == [True, False, True]


@pytest.mark.failure_mode
@pytest.mark.parametrize("judge", ["ProseJudge", "SilentJudge", "RateLimitedJudge"])
def test_the_gate_fails_a_judge_that_gives_nothing_usable(cli, judge):
    result = cli("stages.s10_agreement", "gate", "--judge", f"fakes.judges:{judge}")
    assert result.returncode == 1
    assert result.stdout.count("not evaluated (too little usable data: 0 usable of 48") == 3
    assert "FAILED: 0 of 3 rules" in result.stdout


def test_a_rule_can_be_switched_off_in_the_config():
    relaxed = replace(CONFIG, fail_on_verbosity_bias=False)
    rule = judge_gate(*measured(shift="found"), relaxed)[0]
    assert (rule.passed, rule.limit) == (True, "(not enforced)")


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("max_flip_rate = 0.1\nmin_kappa = 0.6\nfail_on_verbosity_bias = true\nstrict = 1\n",
         "unknown setting 'strict'"),
        ("max_flip_rate = 'low'\nmin_kappa = 0.6\nfail_on_verbosity_bias = true\n",
         "max_flip_rate must be float, got 'low'"),
        ("max_flip_rate = 0\nmin_kappa = 1\nfail_on_verbosity_bias = true\n", ""),
    ],
)  # fmt: skip
def test_the_gate_config_is_checked(tmp_path, text, message):
    path = tmp_path / "gate.toml"
    path.write_text(text)
    if not message:  # whole numbers are accepted where a fraction is expected
        assert load_gate(path).min_kappa == 1.0
        return
    with pytest.raises(CourseInputError) as raised:
        load_gate(path)
    assert str(raised.value).startswith(f"{path}: {message}")


def test_the_shipped_gate_config_is_the_documented_defaults():
    assert load_gate() == CONFIG
