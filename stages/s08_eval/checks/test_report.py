"""The report and the command line: all cases in the denominator, both halves shown, exit codes."""

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from fakes.judges import BiasedJudge, SteadyJudge
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import writable, write_text
from stages.s08_eval.commands import emit, status
from stages.s08_eval.findings import Finding
from stages.s08_eval.judge import Instrument
from stages.s08_eval.length import load_length_pairs
from stages.s08_eval.levels import Level, State
from stages.s08_eval.position import load_position_pairs
from stages.s08_eval.render import calls, describe_length, describe_position, render
from stages.s08_eval.report import evaluation
from stages.s08_eval.sampling import sampling_state
from stages.s08_eval.specs import JudgeChoice

STAGE = Path(__file__).resolve().parents[1]


def report_for(runs, judge, fake=True, control=None):
    chosen = JudgeChoice(judge, "judge", fake)
    return evaluation(
        list(runs.values()), chosen, JudgeChoice(control or SteadyJudge(), "steady", True)
    )


@pytest.mark.failure_mode
def test_the_denominator_is_every_case_in_every_level(runs):
    report = report_for(runs, BiasedJudge())
    for counts in report.levels.values():
        assert sum(counts.values()) == len(runs)
        assert set(counts) == {"passed", "failed", "unscored", "not_evaluated"}


def test_flakiness_is_checked_for_the_fakes_by_judging_twice(runs):
    report = report_for(runs, SteadyJudge())
    assert report.flakiness == {"state": "passed", "repeats": 2}
    answered = sum(run.trajectory.answer is not None for run in runs.values())
    pairs = len(load_position_pairs()) + len(load_length_pairs())
    assert report.judge.calls == 2 * answered + 2 * pairs
    assert report.control.calls == 2 * pairs


@pytest.mark.failure_mode
def test_with_an_outside_judge_flakiness_and_sampling_are_not_evaluated(runs):
    report = report_for(runs, SteadyJudge(), fake=False)
    assert report.flakiness["state"] == "not_evaluated"
    assert report.sampling["state"] == "not_evaluated"


@pytest.mark.failure_mode
def test_a_biased_control_marks_the_detectors_broken(runs):
    report = report_for(runs, SteadyJudge(), control=BiasedJudge())
    assert report.detector_broken == ["position_bias", "length_bias"]
    assert "THE POSITION BIAS DETECTOR IS BROKEN" in render(report)


def test_the_command_prints_the_report_with_both_halves(cli, tmp_path):
    result = cli("stages.s08_eval", "--out", str(tmp_path / "r.json"))
    assert result.returncode == 0, result.stderr
    assert "judge   (biased): FOUND — 3 of 3" in result.stdout
    assert "control (steady): none found — 0 of 3" in result.stdout
    assert "RUN IS NOT SUCCESSFUL" not in result.stdout


def test_the_file_written_recounts_to_the_summary(cli, tmp_path):
    out = tmp_path / "r.json"
    printed = json.loads(cli("stages.s08_eval", "--json", "--out", str(out)).stdout)
    written = json.loads(out.read_text())  # the file, read back as its own source
    rows = written["results"]
    recount = {  # every row's state at every level, counted again from the file
        level: {
            state: sum(row["levels"][level]["state"] == state for row in rows) for state in State
        }
        for level in Level
    }
    assert written["levels"] == recount == printed["levels"]
    assert written["cases"]["edge"] == sum(row["edge"] for row in written["results"])
    assert written["cases"]["total"] == len(written["results"])


def test_the_json_has_the_documented_keys(cli, tmp_path):
    report = json.loads(cli("stages.s08_eval", "--json", "--out", str(tmp_path / "r")).stdout)
    assert {
        "cases",
        "judge",
        "levels",
        "position_bias",
        "length_bias",
        "trace_survey",
        "sampling",
    } <= set(report)
    assert report["not_successful"] == []
    assert set(report["judge"]) == {"name", "calls", "unavailable"}
    assert set(report["position_bias"]["judge"]) == {
        "state",
        "reason",
        "flips",
        "pairs",
        "unscored",
    }
    assert set(report["length_bias"]["control"]) == {
        "state", "reason", "found", "pairs", "unscored", "gaps"
    }  # fmt: skip
    assert set(report["length_bias"]["judge"]["gaps"][0]) == {"before", "after", "extra_chars"}
    assert set(report["trace_survey"]) == {"stages", "without_run_key"}
    assert set(report["sampling"]) == {"requests", "sent", "state"}


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("spec", "position", "length"),
    [
        ("fakes.judges:favours_second_slot", "FOUND — 3 of 3", "FOUND — 2 of 2"),
        ("fakes.judges:point_per_25_chars", "FOUND — 3 of 3", "FOUND — 2 of 2"),
        ("fakes.judges:SteadyJudge", "none found — 0 of 3", "none found — 0 of 2"),
    ],
)
def test_plugged_in_judges_meet_the_same_unchanged_detectors(cli, tmp_path, spec, position, length):
    result = cli("stages.s08_eval", "--judge", spec, "--out", str(tmp_path / "r"))
    assert result.returncode == 0, result.stderr
    assert f"judge   ({spec}): {position}" in result.stdout
    assert f"judge   ({spec}): {length}" in result.stdout


@pytest.mark.failure_mode
def test_a_plugged_in_judge_that_replies_in_prose_changes_no_denominator(cli, tmp_path):
    args = ["--judge", "fakes.judges:ProseJudge", "--json", "--out", str(tmp_path / "r")]
    report = json.loads(cli("stages.s08_eval", *args).stdout)
    assert report["levels"]["end_to_end"]["unscored"] == report["cases"]["total"]
    assert report["position_bias"]["judge"]["state"] == "not_evaluated"


@pytest.mark.failure_mode
@pytest.mark.parametrize("judge", ["ProseJudge", "SilentJudge", "RateLimitedJudge"])
def test_a_judge_that_gives_nothing_usable_makes_the_run_not_successful(cli, tmp_path, judge):
    out = tmp_path / "r.json"
    result = cli("stages.s08_eval", "--judge", f"fakes.judges:{judge}", "--out", str(out))
    assert result.returncode == 1
    assert result.stdout.splitlines()[1] == (
        "RUN IS NOT SUCCESSFUL: no case could be judged (24 unscored)"
    )  # 22 judged answers unusable, and the 2 runs without an answer
    report = json.loads(out.read_text())
    assert report["not_successful"] == [
        "no case could be judged (24 unscored)",
        "position bias (judge) not evaluated",
        "length bias (judge) not evaluated",
    ]
    assert result.stderr.splitlines()[-1] == (
        "error: run is not successful: no case could be judged (24 unscored) "
        "(and 2 more in the report)"
    )


@pytest.mark.failure_mode
def test_a_control_without_usable_replies_is_not_a_clean_control(runs):
    from fakes.judges import ProseJudge

    report = report_for(runs, BiasedJudge(), control=ProseJudge())
    assert report.detector_broken == []  # it found nothing, because it saw nothing
    assert report.not_successful == [
        "position bias (control) not evaluated",
        "length bias (control) not evaluated",
    ]


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("where", "fragment"),
    [("folder", "is a folder, not a file"), ("under-a-file", "a-file is a file, not a folder")],
)
def test_a_report_that_cannot_be_written_is_refused_before_any_work(
    cli, one_line_error, tmp_path, where, fragment
):
    (tmp_path / "folder").mkdir()
    (tmp_path / "a-file").write_text("")
    out = tmp_path / ("folder" if where == "folder" else "a-file/r.json")
    fragment = fragment.replace("a-file is", f"{tmp_path / 'a-file'} is")
    one_line_error(cli("stages.s08_eval", "--out", str(out)), f"--out {out}: {fragment}")


@pytest.mark.failure_mode
def test_an_empty_case_file_fails_loudly_instead_of_printing_green(cli, tmp_path):
    cases = tmp_path / "cases.json"
    cases.write_text("[]")
    result = cli("stages.s08_eval", "--cases", str(cases), "--out", str(tmp_path / "r"))
    assert result.returncode == 1
    assert "nothing was evaluated" in result.stderr


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("gpt-judge", "expected biased, steady or module.path:attribute"),
        ("fakes.nowhere:Judge", "cannot import 'fakes.nowhere'"),
        ("fakes.judges:Nothing", "fakes.judges has no attribute 'Nothing'"),
        ("stages.s08_eval.judge:VERDICTS", "tuple has no score or compare method"),
    ],
)
def test_a_spec_that_names_no_judge_is_one_line_and_exit_2(cli, one_line_error, spec, fragment):
    one_line_error(cli("stages.s08_eval", "--judge", spec), fragment)


@pytest.mark.golden
def test_the_lesson_quotes_the_numbers_of_a_live_run(runs):
    readme = (STAGE / "README.md").read_text()
    numbers = readme.split("### Numbers from a run", 1)[1].split("\n#", 1)[0]
    quoted = dict(re.findall(r"^- (.+?): `(.+)`$", numbers, flags=re.MULTILINE))
    report = report_for(runs, BiasedJudge())
    checks = "".join(p.read_text() for p in (STAGE / "checks").glob("test_*.py"))
    tests = len(re.findall(r"^def test_", checks, flags=re.MULTILINE))
    marked = len(re.findall(r"^@pytest\.mark\.failure_mode$", checks, flags=re.MULTILINE))
    calls = report.judge.calls, report.control.calls
    edges = sum(row["edge"] for row in report.results)
    survey = report.trace_survey
    live = {
        "cases": f"{len(report.results)}, {edges} of them edge cases",
        "checks": f"{tests}, {marked} of them on failure modes",
        "judge calls per run": f"{calls[0]} (control: {calls[1]})",
        "position bias": f"{describe_position(report.judge.position)} (biased); "
        f"{describe_position(report.control.position)} (steady)",
        "length bias": f"{describe_length(report.judge.length)[0]} (biased); "
        f"{describe_length(report.control.length)[0]} (steady)",
        "stages without a run key": f"{len(survey.without_run_key)} of {len(survey.stages)}",
        "sampled": f"{report.sampling['sent']} of {report.sampling['requests']} requests",
        # a sweep takes minutes, so its figures come from the file the last sweep wrote
        "mutmut sweep, last run": "{caught} of {total} mutants caught ({score_percent}%)".format(
            **json.loads((STAGE.parents[1] / "mutations" / "mutmut_score.json").read_text())
        ),
    }
    assert quoted == live


def test_the_report_file_holds_exactly_the_report(runs, tmp_path, capsys):
    report = report_for(runs, SteadyJudge())
    path = tmp_path / "deep" / "er" / "r.json"
    emit({}, "an empty report", False, path)
    emit(report.to_json(), "", True, path)  # the folder exists by now; the file is replaced
    assert json.loads(path.read_text()) == report.to_json()
    assert path.read_text().endswith("}\n")
    assert capsys.readouterr().out.splitlines() == [
        "an empty report",
        json.dumps(report.to_json(), sort_keys=True),
    ]  # the text, then the JSON on one line


@pytest.mark.failure_mode
def test_only_a_passed_or_failed_level_counts_as_evaluated(runs):
    report = report_for(runs, SteadyJudge())

    def evaluated(*states):  # one case a state at end to end; its other levels not graded
        others = {"trajectory": {"state": "unscored"}, "component": {"state": "not_evaluated"}}
        rows = [{"levels": {"end_to_end": {"state": state}, **others}} for state in states]
        return "nothing was evaluated" not in replace(report, results=rows).not_successful

    assert not evaluated("unscored", "unscored", "not_evaluated", "unscored", "unscored")
    assert evaluated("passed", "unscored", "unscored", "unscored", "unscored")
    assert evaluated("failed", "unscored", "unscored", "unscored", "unscored")
    assert evaluated("passed", "failed", "unscored", "unscored", "not_evaluated")


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("sent", "state"), [(92, "passed"), (100, "failed"), (70, "passed"), (130, "passed"),
                        (69, "failed"), (131, "failed"), (1000, "failed")],
)  # fmt: skip
def test_sampling_passes_near_the_target_and_never_exactly_on_it(sent, state):
    # target 1000 * 0.1 = 100, tolerance 30: 70..130 pass, except 100 itself
    assert sampling_state(sent, 1000) == state


class ChangesItsMind:
    """A judge that gives an answer 9 the first time it sees it, and 3 every time after."""

    def __init__(self):
        self.seen = set()

    def score(self, task, answer, reference):
        first_time = answer not in self.seen
        self.seen.add(answer)
        return "9" if first_time else "3"

    def compare(self, task, first, second):
        return "tie"


@pytest.mark.failure_mode
def test_a_judge_that_changes_its_mind_fails_the_flakiness_check(runs):
    assert report_for(runs, ChangesItsMind()).flakiness == {"state": "failed", "repeats": 2}


def test_the_text_report_names_every_signal_of_a_mislabelled_case(runs):
    report = report_for(runs, SteadyJudge())
    mislabelled = {"label": "normal", "signals": ["tool_error", "run_limit"]}
    rows = [
        {**row, **mislabelled} if row["id"] == "never-answers" else row for row in report.results
    ]
    survey = replace(report.trace_survey, without_run_key=[])
    text = render(replace(report, results=rows, trace_survey=survey))
    assert (
        "label ignored: never-answers is labelled normal; its trace shows tool_error, run_limit"
        in text
    )
    assert "  no run key: none" in text


def test_a_place_for_the_report_is_checked_before_any_work(tmp_path):
    fresh = tmp_path / "new" / "folder" / "r.json"
    assert writable(fresh, "--out") == fresh and fresh.parent.is_dir()
    assert not fresh.exists()  # checked, not written: a crash later leaves no empty file
    (tmp_path / "a-file").write_text("")
    for path, problem in (
        (tmp_path / "new", "is a folder, not a file"),
        (tmp_path / "a-file" / "r.json", f"{tmp_path / 'a-file'} is a file, not a folder"),
    ):
        with pytest.raises(CourseInputError) as raised:
            writable(path, "--out")
        assert str(raised.value) == f"--out {path}: {problem}"
    with pytest.raises(CourseInputError) as raised:
        write_text(tmp_path / "new", "{}")  # a folder where the file should be
    assert str(raised.value) == (
        f"{tmp_path / 'new'}: cannot write (Is a directory); nothing was written"
    )


def test_the_first_reason_says_how_many_more_there_are(capsys):
    assert status([]) == 0
    assert capsys.readouterr().err == ""
    assert status(["no case could be judged"]) == 1
    assert capsys.readouterr().err == "error: run is not successful: no case could be judged\n"
    assert status(["a", "b", "c"]) == 1
    assert capsys.readouterr().err == "error: run is not successful: a (and 2 more in the report)\n"


def test_a_judge_that_describes_itself_is_named_with_its_requests_and_replies(runs):
    side = report_for(runs, SteadyJudge()).judge
    assert calls(replace(side, calls=54)) == "54 calls"
    usage = Instrument("some-model", "127.0.0.1:8080", 35, 29, 3, "the journal")
    assert calls(replace(side, calls=32, instrument=usage)) == (
        "32 questions: 35 requests to 127.0.0.1:8080, 29 replies received, 3 from the journal"
    )


def test_every_reason_a_run_is_not_successful_is_named(runs):
    report = report_for(runs, SteadyJudge(), control=BiasedJudge())
    unscored = {level: {"state": "unscored"} for level in ("end_to_end", "trajectory", "component")}
    rows = [{**row, "levels": unscored} for row in report.results[:5]]  # 5 cases, none graded
    judge = replace(
        report.judge,
        unavailable="unavailable after 3 failed calls in a row (...)",
        position=replace(report.judge.position, state=Finding.NOT_EVALUATED),
    )
    report = replace(report, judge=judge, results=rows)
    assert report.not_successful == [
        "judge unavailable after 3 failed calls in a row (...)",
        "nothing was evaluated",
        "no case could be judged (5 unscored)",
        "position bias (judge) not evaluated",
        "the control shows position bias: the detector is broken",
        "the control shows length bias: the detector is broken",
    ]
    judged = ["passed", "failed", "unscored", "unscored", "unscored"]
    rows = [
        {**row, "levels": {**unscored, "end_to_end": {"state": state}}}
        for row, state in zip(rows, judged, strict=True)
    ]  # end to end: 1 passed, 1 failed, 3 unscored
    assert (
        "no case could be judged (3 unscored)" not in replace(report, results=rows).not_successful
    )
