"""The gate, plots, and the rubric change held to its record."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from fakes.judges import BiasedJudge, SteadyJudge
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.findings import Evidence, Finding, Outcome
from stages.s08_eval.judge import CountingJudge
from stages.s09_calibration.agreement import Trust
from stages.s09_calibration.calibrate import MEASURES, calibrate, rubric_change
from stages.s09_calibration.calibration import load_calibration
from stages.s09_calibration.gate import Thresholds, judge_gate, load_gate
from stages.s09_calibration.measures import TwinShift
from stages.s09_calibration.rubrics import Rubric
from stages.s09_calibration.twins import load_twins

STAGE = Path(__file__).resolve().parents[1]
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
    biased = cli("stages.s09_calibration", "gate")
    assert biased.returncode == 1
    assert biased.stdout.count("  FAIL  ") == 3 and "FAILED: 0 of 3 rules" in biased.stdout
    steady = cli("stages.s09_calibration", "gate", "--judge", "steady")
    assert steady.returncode == 0 and "passed: 3 of 3 rules" in steady.stdout


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
    result = cli("stages.s09_calibration", "gate", "--judge", f"fakes.judges:{judge}")
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


def test_plots_are_written_as_png_files(cli, tmp_path):
    result = cli("stages.s09_calibration", "report", "--plots", str(tmp_path / "plots"),
                 "--out", str(tmp_path / "r.json"))  # fmt: skip
    assert result.returncode == 0, result.stderr
    for name in ("score_vs_length.png", "bootstrap.png", "confusion.png"):
        assert (tmp_path / "plots" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.failure_mode
@pytest.mark.parametrize("judge", ["ProseJudge", "SilentJudge", "RateLimitedJudge"])
def test_a_report_over_no_usable_reply_says_so_at_the_top_and_exits_1(cli, tmp_path, judge):
    out = tmp_path / "r.json"
    result = cli("stages.s09_calibration", "report", "--judge", f"fakes.judges:{judge}",
                 "--out", str(out))  # fmt: skip
    assert result.returncode == 1
    # every text scored 3 times (48 answers, 96 twins) and 24 pairs in both orders: 480
    assert result.stdout.splitlines()[1] == (
        "RUN IS NOT SUCCESSFUL: nothing was evaluated for the judge: 480 of 480 replies unscored"
    )
    assert result.stdout.count("NOT EVALUATED — too little usable data: 0 usable of") == 6
    report = json.loads(out.read_text())
    for name in MEASURES:
        assert (report[name]["state"], report[name]["usable"]) == ("not_evaluated", 0)
        assert report["control"][name]["state"] != "not_evaluated"  # the control still works
    assert report["rubric_change"]["state"] == "not_evaluated"
    assert report["unscored"]["count"] == 480


@pytest.mark.failure_mode
def test_one_measure_without_data_is_enough_to_fail_the_report(cli, tmp_path):
    # scores like the steady judge, compares in prose: only pairwise has no usable reply
    judge = "stages.s09_calibration.checks.test_calibrate:ComparesInProse"
    out = tmp_path / "r.json"
    result = cli("stages.s09_calibration", "report", "--judge", judge, "--out", str(out))
    assert result.returncode == 1
    assert result.stdout.splitlines()[1] == (
        "RUN IS NOT SUCCESSFUL: not evaluated for the judge: pairwise"
    )
    report = json.loads(out.read_text())
    assert [name for name in MEASURES if report[name]["state"] == "not_evaluated"] == ["pairwise"]


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--repeats", "0"], "argument --repeats: 0: each text must be scored at least once"),
        (["--repeats", "-1"], "argument --repeats: -1: each text must be scored at least once"),
        (["--repeats", "two"], "argument --repeats: 'two' is not a whole number"),
        (["--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_arguments_that_cannot_make_a_measurement_are_refused(cli, arguments, message):
    result = cli("stages.s09_calibration", "report", *arguments)
    assert result.returncode == 2 and result.stdout == ""
    # the report command's own usage and error, not the top-level one
    assert result.stderr.startswith("usage: python -m stages.s09_calibration report ")
    assert result.stderr.endswith(f"python -m stages.s09_calibration report: error: {message}\n")


def test_calibrate_refuses_to_score_each_text_no_times():
    with pytest.raises(ValueError, match="repeats must be at least 1, got 0"):
        cases = load_calibration()
        calibrate(CountingJudge(SteadyJudge(), "s"), cases, load_twins(cases), repeats=0)


@pytest.mark.failure_mode
def test_outputs_that_cannot_be_written_are_refused_before_any_work(cli, one_line_error, tmp_path):
    (tmp_path / "a-file").write_text("")
    out = tmp_path / "a-file" / "r.json"
    one_line_error(cli("stages.s09_calibration", "report", "--out", str(out)),
                   f"--out {out}: {tmp_path / 'a-file'} is a file, not a folder")  # fmt: skip
    plots = tmp_path / "a-file"
    one_line_error(cli("stages.s09_calibration", "report", "--plots", str(plots),
                       "--out", str(tmp_path / "r.json")),
                   f"--plots {plots}: is a file; name a folder for the plots")  # fmt: skip
    assert not (tmp_path / "r.json").exists()  # refused before anything was measured


def test_the_report_json_has_the_documented_keys(cli, tmp_path):
    report = json.loads(cli("stages.s09_calibration", "report", "--json",
                            "--out", str(tmp_path / "r.json")).stdout)  # fmt: skip
    every = {"state", "reason", "usable", "total", "unscored", "verdict"}
    assert report["not_successful"] == [] and report["reply"] == "bare"
    for side in (report, report["control"]):
        for key in ("verbosity", "concise"):
            assert every | {"n", "repeats", "mean_delta", "ci", "share_higher", "flips"} == set(
                side[key]
            )
        assert every | {"kappa", "observed", "expected", "trustworthy", "disagreements",
                        "scored", "queue", "pass_rate"} == set(side["calibration"])  # fmt: skip
        assert every | {"spearman", "ci", "pearson"} == set(side["length_confound"])
        assert every | {"pairs", "gap", "ci"} == set(side["self_preference"])
        assert every | {"bullets", "prose", "tie", "pairs", "calls", "swap_consistency"} == set(
            side["pairwise"]
        )
        assert set(side["unscored"]) == {"count", "reasons", "example"}
        assert set(side["judge"]) == {"name", "calls", "calls_in_all", "unavailable"}
    assert every | {"open", "facts"} == set(report["rubric_change"])


def test_the_rubric_change_is_the_recorded_one():
    cases = load_calibration()
    twins = load_twins(cases)
    live = rubric_change(
        calibrate(CountingJudge(BiasedJudge(), "biased"), cases, twins),
        calibrate(CountingJudge(BiasedJudge(), "biased"), cases, twins, rubric=Rubric.FACTS),
    )
    assert live.to_json() == json.loads((STAGE / "rubric_change.json").read_text())


@pytest.mark.failure_mode
def test_the_checklist_removes_the_length_bias_and_leaves_the_steady_judge_as_it_was():
    cases = load_calibration()
    twins = load_twins(cases)
    facts = calibrate(CountingJudge(BiasedJudge(), "b"), cases, twins, rubric=Rubric.FACTS)
    assert (facts.verbosity.state, facts.verbosity.verdict) == ("not_found", "no shift")
    steady_open = calibrate(CountingJudge(SteadyJudge(), "s"), cases, twins)
    steady_facts = calibrate(CountingJudge(SteadyJudge(), "s"), cases, twins, rubric=Rubric.FACTS)
    assert steady_open.calibration == steady_facts.calibration
