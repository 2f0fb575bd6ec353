"""The gate, the audit of existing scores, plots, and the rubric change held to its record."""

import csv
import json
from pathlib import Path

import pytest

from fakes.judges import BiasedJudge, SteadyJudge
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.judge import CountingJudge
from stages.s09_calibration.audit import Columns, audit, summary
from stages.s09_calibration.calibrate import calibrate, rubric_change
from stages.s09_calibration.calibration import load_calibration, load_twins
from stages.s09_calibration.gate import judge_gate, load_gate
from stages.s09_calibration.rubrics import Rubric

STAGE = Path(__file__).resolve().parents[1]
CONFIG = {"fail_on_verbosity_bias": True, "max_flip_rate": 0.05, "min_kappa": 0.6}


def measured(flips=0, n=40, excludes_zero=False, kappa=0.7):
    return {
        "verbosity": {"flips": flips, "n": n, "excludes_zero": excludes_zero},
        "calibration": {"kappa": kappa},
    }


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
        (measured(excludes_zero=True), [False, True, True]),
    ],
)
def test_each_rule_at_and_beyond_its_threshold(case, passes):
    assert [rule.passed for rule in judge_gate(case, CONFIG)] == passes


@pytest.mark.failure_mode
def test_nothing_measured_or_kappa_undefined_cannot_pass_the_gate():
    assert [r.passed for r in judge_gate(measured(n=0), CONFIG)] == [True, False, True]
    assert [r.passed for r in judge_gate(measured(kappa=None), CONFIG)] == [True, True, False]


def test_a_rule_can_be_switched_off_in_the_config():
    relaxed = dict(CONFIG, fail_on_verbosity_bias=False)
    rule = judge_gate(measured(excludes_zero=True), relaxed)[0]
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
        assert load_gate(path)["min_kappa"] == 1.0
        return
    with pytest.raises(CourseInputError) as raised:
        load_gate(path)
    assert str(raised.value).startswith(f"{path}: {message}")


def test_the_shipped_gate_config_is_the_documented_defaults():
    assert load_gate() == CONFIG


def write_csv(path, rows):
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item", "reply_text", "judge_grade", "person"])
        writer.writerows(rows)


@pytest.mark.failure_mode
def test_the_audit_counts_and_names_bad_rows_and_measures_the_rest(tmp_path):
    path = tmp_path / "theirs.csv"
    write_csv(path, [
        [1, "short", 3, "fail"], [2, "a much longer reply", 8, "pass"],
        [3, "mid size", "n/a", "pass"], [4, "longer still, and then some", 9, "fail"],
        [5, "tiny", 2, "maybe"], [6, "", 5, "pass"], [7, "medium reply", 7, "8"],
    ])  # fmt: skip
    queue = tmp_path / "queue.jsonl"
    with queue.open("w") as handle:
        found = audit(path, Columns("judge_grade", answer="reply_text", human="person"), 7, handle)
    result = summary(found, Columns("judge_grade", answer="reply_text", human="person"))
    assert (result["rows"], result["skipped"]) == (4, 3)
    assert result["problems"] == [
        "row 4: score 'n/a' is not a number",
        "row 6: human label 'maybe' is neither a score nor pass/fail",
        "row 7: no value in column 'reply_text'",
    ]
    # kept: human fail/judge fail (1), pass/pass (2), fail/pass (4), pass/pass (7, human 8)
    # observed 3 of 4; human pass 2/4, judge pass 3/4: expected 0.5*0.75 + 0.5*0.25 = 0.5
    assert result["calibration"]["observed"] == 0.75
    assert result["calibration"]["expected"] == 0.5
    assert result["calibration"]["kappa"] == pytest.approx(0.5)
    assert [json.loads(line)["row"] for line in queue.read_text().splitlines()] == [5]


def test_the_audit_reads_jsonl_and_a_length_column(tmp_path):
    path = tmp_path / "scores.jsonl"
    rows = [{"s": 1, "n": 10}, {"s": 2, "n": 20}, {"s": 3, "n": 40}, "oops", {"s": 4, "n": 80}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n{broken\n")
    result = summary(audit(path, Columns("s", length="n"), 7, None), Columns("s", length="n"))
    assert (result["rows"], result["skipped"]) == (4, 2)
    assert result["length_confound"]["spearman"] == pytest.approx(1.0)
    assert "calibration" not in result


@pytest.mark.failure_mode
def test_the_audit_command_names_columns_and_fails_when_nothing_was_usable(cli, tmp_path):
    path = tmp_path / "theirs.csv"
    write_csv(path, [[1, "short", "x", "fail"]])
    result = cli("stages.s09_calibration", "audit", str(path), "--score-col", "judge_grade",
                 "--answer-col", "reply_text", "--json")  # fmt: skip
    assert result.returncode == 1
    assert json.loads(result.stdout)["skipped"] == 1
    missing = cli("stages.s09_calibration", "audit", str(path), "--score-col", "judge_grade")
    assert missing.returncode == 2 and "name the answer column" in missing.stderr


def test_plots_are_written_as_png_files(cli, tmp_path):
    result = cli("stages.s09_calibration", "report", "--plots", str(tmp_path / "plots"),
                 "--out", str(tmp_path / "r.json"))  # fmt: skip
    assert result.returncode == 0, result.stderr
    for name in ("score_vs_length.png", "bootstrap.png", "confusion.png"):
        assert (tmp_path / "plots" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_report_json_has_the_documented_keys(cli, tmp_path):
    report = json.loads(cli("stages.s09_calibration", "report", "--json",
                            "--out", str(tmp_path / "r.json")).stdout)  # fmt: skip
    for side in (report, report["control"]):
        for key in ("verbosity", "concise"):
            assert {"n", "repeats", "mean_delta", "ci", "share_higher", "flips", "bias"} <= set(
                side[key]
            )
        assert {"kappa", "observed", "expected", "trustworthy", "disagreements"} <= set(
            side["calibration"]
        )
        assert set(side["length_confound"]) == {"pearson", "spearman"}
        assert set(side["judge"]) == {"name", "calls"}


def test_the_rubric_change_is_the_recorded_one():
    cases, twins = load_calibration(), load_twins()
    live = rubric_change(
        calibrate(CountingJudge(BiasedJudge(), "biased"), cases, twins),
        calibrate(CountingJudge(BiasedJudge(), "biased"), cases, twins, rubric=Rubric.FACTS),
    )
    assert live == json.loads((STAGE / "rubric_change.json").read_text())


@pytest.mark.failure_mode
def test_the_checklist_removes_the_length_bias_and_leaves_the_steady_judge_as_it_was():
    cases, twins = load_calibration(), load_twins()
    facts = calibrate(CountingJudge(BiasedJudge(), "b"), cases, twins, rubric=Rubric.FACTS)
    assert facts["verbosity"]["bias"] == "none"
    steady_open = calibrate(CountingJudge(SteadyJudge(), "s"), cases, twins)
    steady_facts = calibrate(CountingJudge(SteadyJudge(), "s"), cases, twins, rubric=Rubric.FACTS)
    assert steady_open["calibration"] == steady_facts["calibration"]
