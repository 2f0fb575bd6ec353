"""Stage 10's report: the rubric change as recorded, its plots and its review queue."""

import json
from pathlib import Path

import pytest

from fakes.judges import BiasedJudge, SteadyJudge
from stages.s08_eval.judge import CountingJudge
from stages.s09_calibration.calibration import load_calibration
from stages.s09_calibration.twins import load_twins
from stages.s10_agreement.people import calibrate_against_people
from stages.s10_agreement.rubric_change import rubric_change
from stages.s10_agreement.rubrics import Rubric

STAGE = Path(__file__).resolve().parents[1]


def test_the_rubric_change_is_the_recorded_one():
    cases = load_calibration()
    twins = load_twins(cases)
    live = rubric_change(
        calibrate_against_people(CountingJudge(BiasedJudge(), "biased"), cases, twins),
        calibrate_against_people(
            CountingJudge(BiasedJudge(), "biased"), cases, twins, rubric=Rubric.FACTS
        ),
    )
    assert live.to_json() == json.loads((STAGE / "rubric_change.json").read_text())


@pytest.mark.failure_mode
def test_the_checklist_removes_the_length_bias_and_leaves_the_steady_judge_as_it_was():
    cases = load_calibration()
    twins = load_twins(cases)
    facts = calibrate_against_people(
        CountingJudge(BiasedJudge(), "b"), cases, twins, rubric=Rubric.FACTS
    )
    assert (facts.verbosity.state, facts.verbosity.verdict) == ("not_found", "no shift")
    steady_open = calibrate_against_people(CountingJudge(SteadyJudge(), "s"), cases, twins)
    steady_facts = calibrate_against_people(
        CountingJudge(SteadyJudge(), "s"), cases, twins, rubric=Rubric.FACTS
    )
    assert steady_open.calibration == steady_facts.calibration


def test_the_report_writes_its_review_queue_and_the_kappa_table(cli, tmp_path):
    out, plots = tmp_path / "r.json", tmp_path / "plots"
    result = cli("stages.s10_agreement", "report", "--plots", str(plots), "--out", str(out))
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    rows = out.with_suffix(".review.jsonl").read_text().splitlines()
    queue = [json.loads(row) for row in rows]
    # the queue file holds the report's queue, one disagreement a line
    assert queue == report["calibration"]["queue"]
    assert len(queue) == report["calibration"]["disagreements"] > 0
    names = sorted(path.name for path in plots.iterdir())
    assert names == ["bootstrap.png", "confusion.png", "score_vs_length.png"]
    assert (plots / "confusion.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
