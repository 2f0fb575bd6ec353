"""Cases: enough of them, edges read from what the agent did, bad case files named."""

import json

import pytest

from stages.s01_model.errors import CourseInputError
from stages.s08_eval.cases import CASES_FILE, EDGE_KINDS, load_cases


def test_there_are_at_least_21_cases_and_9_edges_by_their_trajectories(runs):
    edges = [run for run in runs.values() if set(run.trajectory.kinds) & EDGE_KINDS]
    assert len(runs) >= 21 and len(edges) >= 9


def test_every_case_plays_its_whole_script(runs):
    # A script step left over would mean the case describes a conversation that never ran.
    for case_id, run in runs.items():
        assert run.script_finished, case_id
        assert run.trajectory.run_id == f"case-{case_id}"
        assert run.trajectory.task == run.case.task


@pytest.mark.failure_mode
def test_an_edge_is_read_from_the_trajectory_not_from_the_label(runs):
    # The author labelled the flaky carrier an edge; the retry worked, so its trace has none.
    flaky = runs["flaky-carrier"]
    assert flaky.case.label == "edge"
    assert flaky.trajectory.kinds == ["tool_result", "answer"]
    assert flaky.edge is False and flaky.edge_signals == []


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("case_id", "signals"),
    [
        ("hanging-carrier", ["tool_error"]),
        ("unknown-tool", ["unknown_tool"]),
        ("malformed-args", ["bad_arguments"]),
        ("ship-to-canada", ["refusal"]),
        ("return-unconfirmed", ["blocked"]),
        ("card-number", ["secret_refused"]),
        ("never-answers", ["run_limit"]),
        ("empty-reply", ["no_answer"]),
    ],
)
def test_each_kind_of_edge_shows_in_the_trace(runs, case_id, signals):
    assert runs[case_id].edge_signals == signals


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        (lambda cases: cases[0].pop("task"), "case 'where-a1001': missing 'task'"),
        (lambda cases: cases[1].update(step_budget="3"), "step_budget must be int, got '3'"),
        (lambda cases: cases[1].update(step_budget=0), "step_budget must be at least 1"),
        (lambda cases: cases[2].update(expect="x"), "unknown key 'expect'"),
        (lambda cases: cases[3].update(id="where-a1001"), "the id is used twice"),
        (lambda cases: cases[4]["script"].append({"ansewr": "x"}), "step 3: needs exactly one"),
    ],
)
def test_a_malformed_case_file_names_the_case_and_the_value(tmp_path, edit, fragment):
    cases = json.loads(CASES_FILE.read_text())
    edit(cases)
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(cases))
    with pytest.raises(CourseInputError) as raised:
        load_cases(path)
    assert str(raised.value).startswith(f"{path}: case ")
    assert fragment in str(raised.value)
