"""Two versions of the agent compared case by case: a more verbose agent lifts a length-loving
judge's scores and nothing at equal length; the steady judge, the mirrored half, sees no change;
the checked levels do not move; and the thorough version adds no fact."""

import json
import re
from pathlib import Path

import pytest
from scipy import stats

from stages.s01_model.errors import CourseInputError
from stages.s08_eval.cases import load_cases, run_case
from stages.s09_calibration.calibration import CalCase, Family
from stages.s09_calibration.report import interval
from stages.s09_calibration.twins import added_facts
from stages.s15_versions.corrected import LabelColumns, correct, read_labels, verdicts
from stages.s15_versions.corrected_change import DEMO_LABELS, compared
from stages.s15_versions.versions import (
    VERSIONS_CASES,
    Pair,
    compare,
    demo,
    demo_runs,
    pairs,
    signed,
    thorough,
)

STAGE = Path(__file__).resolve().parents[1]
COLUMNS = LabelColumns("id", "human")
LABELS = str(STAGE.parents[1] / "fixtures" / "s08_labels.csv")


@pytest.fixture(scope="module")
def judged():
    return {judge: demo(judge) for judge in ("biased", "steady")}


def test_a_more_verbose_agent_lifts_a_length_loving_judge_and_nothing_at_equal_length(judged):
    biased = judged["biased"]
    assert biased.state == "found" and biased.pairs == 12
    assert biased.pass_ci[0] > 0 and biased.score_ci[0] > 0  # the raw rise, with its interval
    assert biased.length_ci[0] < 0 < biased.length_ci[1]  # at equal length: no change shown
    assert biased.verdict.startswith("the judge rewarded length")
    assert biased.paths_changed == 0


def test_the_steady_judge_sees_no_change_between_the_versions(judged):
    steady = judged["steady"]
    assert (steady.state, steady.verdict) == ("not_found", "no change in the scores")
    assert steady.pass_rate == steady.score == steady.at_equal_length == 0
    assert steady.paths_changed == 0


def test_the_thorough_version_calls_the_same_tools_and_adds_no_fact():
    for case in load_cases(VERSIONS_CASES):
        before, after = run_case(case).trajectory, run_case(thorough(case)).trajectory
        assert after.tools_called == before.tools_called
        assert before.answer is not None and after.answer is not None
        assert before.answer in after.answer and len(after.answer) > len(before.answer)
        # stage 9's validator, the reference's words standing in for the facts
        as_graded = CalCase(case.id, case.id, Family.PROSE, case.task, before.answer,
                            (case.expected_answer,), 1, False, "terse")  # fmt: skip
        assert added_facts(as_graded, after.answer) == [], case.id


def test_the_equal_length_figure_is_the_regression_intercept_scipy_finds():
    points = [(3, 2, 80), (5, 1, 40), (4, 3, 120), (6, 2, 90), (2, 4, 150), (5, 0, 20)]
    found = [Pair(str(n), a, a + gain, grew, True) for n, (a, gain, grew) in enumerate(points)]
    result = compare(found)
    fit = stats.linregress([grew for _, _, grew in points], [gain for _, gain, _ in points])
    assert result.at_equal_length == pytest.approx(fit.intercept)
    assert result.score == pytest.approx(2.0)


def test_scores_that_rose_at_every_length_are_not_blamed_on_length():
    grew = [20, 40, 60, 80, 100, 120, 140, 160, 180, 200, 220, 240]
    better = [Pair(str(n), 5, 7 + n % 2, g, True) for n, g in enumerate(grew)]
    found = compare(better)
    assert found.state == "found" and found.length_ci and found.length_ci[0] > 0
    assert found.verdict == (
        "the scores changed, and changed at equal length too: not the length alone"
    )
    assert compare(better) == found  # seeded: the same pairs, the same intervals
    flat = compare([Pair(str(n), 5, 5, g, True) for n, g in enumerate(grew)])
    assert (flat.state, flat.verdict) == ("not_found", "no change in the scores")


@pytest.mark.failure_mode
def test_pairs_that_could_not_be_scored_are_not_evaluated():
    found = [Pair(str(n), None if n % 4 else 5, 7, 60, True) for n in range(8)]
    result = compare(found)
    assert result.state == "not_evaluated" and result.verdict is None
    assert result.outcome.reason.startswith("too little usable data: 2 usable of 8")


@pytest.mark.failure_mode
def test_a_checked_level_that_moved_makes_the_comparison_fail(tmp_path, cli):
    report = json.loads(cli("stages.s08_eval", "--json", "--out", str(tmp_path / "a")).stdout)
    moved = json.loads(json.dumps(report))
    moved["results"][0]["levels"]["trajectory"]["state"] = "failed"
    for name, data in (("a.json", report), ("b.json", moved)):
        (tmp_path / name).write_text(json.dumps(data))
    result = cli(
        "stages.s15_versions", "compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")
    )
    assert result.returncode == 1
    assert "trajectory and component: 1 cases moved (must be 0)" in result.stdout


@pytest.mark.failure_mode
def test_files_that_are_not_two_matching_stage_8_reports_are_one_line(
    tmp_path, cli, one_line_error
):
    report = json.loads(cli("stages.s08_eval", "--json", "--out", str(tmp_path / "a")).stdout)
    (tmp_path / "a.json").write_text(json.dumps(report))
    fewer = {**report, "results": report["results"][1:]}
    (tmp_path / "fewer.json").write_text(json.dumps(fewer))
    (tmp_path / "list.json").write_text("[1, 2]")
    a = str(tmp_path / "a.json")
    one_line_error(cli("stages.s15_versions", "compare", a), "give two stage-8 reports, not 1")
    first = report["results"][0]["id"]
    one_line_error(cli("stages.s15_versions", "compare", a, str(tmp_path / "fewer.json")),
                   f"the runs hold different cases, e.g. [{first!r}]")  # fmt: skip
    one_line_error(cli("stages.s15_versions", "compare", a, str(tmp_path / "list.json")),
                   "RUN_B is not a stage-8 report")  # fmt: skip
    with pytest.raises(CourseInputError, match=r"result 1 .*: levels.end_to_end is absent"):
        broken = {"results": [{"id": row["id"], "answer": "x"} for row in report["results"]]}
        pairs(report, broken, "here")
    second = report["results"][1]
    words = {**second, "levels": {**second["levels"], "trajectory": "passed"}}
    (tmp_path / "words.json").write_text(json.dumps({**report, "results": [words]}))
    words_file = str(tmp_path / "words.json")
    why = "levels.trajectory is 'passed', not a level's verdict"
    one_line_error(cli("stages.s15_versions", "correct", words_file, LABELS), "result 1 (", why)


@pytest.mark.failure_mode
def test_a_case_that_is_in_a_report_twice_is_named_and_refused(cli, one_line_error, tmp_path):
    # the row appended is the first row again, so the one named is one past the last result;
    # read by id into a dict, the second copy would replace the first without a word
    report = json.loads(cli("stages.s08_eval", "--json", "--out", str(tmp_path / "a")).stdout)
    (tmp_path / "a.json").write_text(json.dumps(report))
    results = report["results"]
    twice = {**report, "results": [*results, results[0]]}
    (tmp_path / "twice.json").write_text(json.dumps(twice))
    a, b = str(tmp_path / "a.json"), str(tmp_path / "twice.json")
    named = f"result {len(results) + 1}: case {results[0]['id']!r} is there twice"
    one_line_error(cli("stages.s15_versions", "compare", a, b), named)
    one_line_error(cli("stages.s15_versions", "correct", b, LABELS), named)


@pytest.mark.golden
def test_the_lesson_quotes_the_comparison_of_a_live_run(judged):
    readme = (STAGE / "README.md").read_text()
    numbers = readme.split("### Two versions of the agent", 1)[1].split("\n#", 1)[0]
    quoted = dict(re.findall(r"^- (.+?): `(.+)`$", numbers, flags=re.MULTILINE))
    biased, steady = judged["biased"], judged["steady"]
    live = {
        "biased judge, pass rate": f"{signed(biased.pass_rate)} {interval(biased.pass_ci)}",
        "biased judge, mean score": f"{signed(biased.score)} {interval(biased.score_ci)}",
        "biased judge, score at equal length": (
            f"{signed(biased.at_equal_length)} {interval(biased.length_ci)}"
        ),
        "steady judge, mean score": f"{signed(steady.score)} {interval(steady.score_ci)}",
    }
    corrected = compared("biased", *demo_runs("biased"), [read_labels(DEMO_LABELS, COLUMNS, 7)])
    assert corrected.corrected is not None
    shown = [
        (e.method, e.value, *e.ci) for e in corrected.corrected if e.value is not None and e.ci
    ]
    live["biased judge, the pass rate's change once people's labels count"] = ", ".join(
        f"{method} {value:+.3f} [{low:+.3f}, {high:+.3f}]" for method, value, low, high in shown
    )
    assert quoted == live
    people = next(e for e in corrected.corrected if e.method == "people only")
    assert people.value == 0 and people.ci is not None and people.ci[0] == -people.ci[1]
    lesson = " ".join((STAGE / "README.md").read_text(encoding="utf-8").split())
    assert f"the people's change is exactly 0, yet its interval spans \u00b1{people.ci[1]:.3f}" in (
        lesson
    )


def test_the_lesson_counts_the_demo_cases():
    lesson = " ".join((STAGE / "README.md").read_text().split())
    assert len(load_cases(VERSIONS_CASES)) == 12 and "runs the demo's twelve cases" in lesson


@pytest.mark.golden
def test_the_lesson_s_prose_about_the_corrected_change_is_the_run_s(judged):
    lesson = " ".join((STAGE / "README.md").read_text().split())
    assert judged["biased"].pass_rate == pytest.approx(1 / 3)
    assert "The judge's pass rate rose by a third" in lesson
    people = read_labels(DEMO_LABELS, COLUMNS, 7)
    fails = sum(label is not None and not label.passed for label in people.values())
    assert (fails, len(people)) == (3, 12) and "three of the twelve leave out" in lesson
    before = correct(verdicts(demo_runs("biased")[0], "terse"), people, "terse").rates
    (tn, fp), (fn, tp) = before.table
    assert fp == 0  # "fails all": the judge passes none of the answers people fail
    assert (
        f"the judge passes {tp} of the {tp + fn} answers people pass and fails all {tn} they "
        f"fail (TPR {tp / (tp + fn):.2f}, TNR {tn / (tn + fp):.2f}), too weak a judge for "
        f"{before.labelled} labels"
    ) in lesson
