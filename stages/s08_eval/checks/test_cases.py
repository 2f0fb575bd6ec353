"""Cases: enough of them, edges read from what the agent did, bad case files named."""

import dataclasses
import json

import pytest

from stages.s01_model.errors import CourseInputError
from stages.s08_eval.cases import CASES_FILE, EDGE_KINDS, load_cases, run_case


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
        (lambda c: c[0].pop("task"), "case 'where-a1001': missing 'task'"),
        (
            lambda c: c[1].update(step_budget="3"),
            "case 'status-a1003': step_budget must be int, got '3'",
        ),
        (
            lambda c: c[1].update(step_budget=True),
            "case 'status-a1003': step_budget must be int, got True",
        ),
        (
            lambda c: c[1].update(step_budget=0),
            "case 'status-a1003': step_budget must be at least 1",
        ),
        (lambda c: c[2].update(expect="x"), "case 'delivered-a1002': unknown key 'expect'"),
        (lambda c: c[3].update(id="where-a1001"), "case 'where-a1001': the id is used twice"),
        (lambda c: c[1].pop("id"), "case 2: missing 'id'"),
        (
            lambda c: c.insert(0, ["not", "a", "case"]),
            "case 1: expected an object, got ['not', 'a', 'case']",
        ),
        (
            lambda c: c[4]["script"].append({"ansewr": "x"}),
            "case 'unknown-order': step 3: needs exactly one of call, answer, fault; "
            "got {'ansewr': 'x'}",
        ),
    ],
)
def test_a_malformed_case_file_names_the_case_and_the_value(tmp_path, edit, fragment):
    cases = json.loads(CASES_FILE.read_text())
    edit(cases)
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(cases))
    with pytest.raises(CourseInputError) as raised:
        load_cases(path)
    assert str(raised.value) == f"{path}: {fragment}"


@pytest.mark.failure_mode
def test_a_case_file_that_is_not_a_list_is_named(tmp_path):
    path = tmp_path / "cases.json"
    path.write_text('{"id": "x"}')
    with pytest.raises(CourseInputError) as raised:
        load_cases(path)
    assert str(raised.value) == f"{path}: expected a list of cases, got dict"


def test_a_case_keeps_every_field_it_was_given():
    case = next(c for c in load_cases() if c.id == "return-approved")
    raw = next(c for c in json.loads(CASES_FILE.read_text()) if c["id"] == "return-approved")
    assert (case.task, case.expected_answer, case.step_budget) == (
        raw["task"],
        raw["expected_answer"],
        raw["step_budget"],
    )
    assert case.expected_tools == tuple(raw["expected_tools"]) and case.script == tuple(
        raw["script"]
    )
    assert (case.approve, case.label) == (True, "normal")


def test_a_budget_of_one_step_is_allowed(tmp_path):
    cases = json.loads(CASES_FILE.read_text())[:1]
    cases[0]["step_budget"] = 1
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(cases))
    assert load_cases(path)[0].step_budget == 1


@pytest.mark.failure_mode
def test_a_script_too_short_for_its_case_is_named_by_the_case(tmp_path):
    cases = json.loads(CASES_FILE.read_text())[:1]
    cases[0]["script"] = cases[0]["script"][:1]  # the call, and no answer after it
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(cases))
    with pytest.raises(CourseInputError) as raised:
        run_case(load_cases(path)[0])
    assert str(raised.value).startswith(f"{path}: case 'where-a1001': expected step 2")


def test_running_a_case_plays_it_through_the_agent_with_its_approval():
    approved = next(c for c in load_cases() if c.id == "return-approved")
    run = run_case(approved)
    assert run.case is approved
    assert (run.trajectory.run_id, run.script_finished) == ("case-return-approved", True)
    assert run.trajectory.kinds == ["tool_result", "answer"]
    assert run.trajectory.steps[0].text.startswith("Return R-A1002 started")
    unapproved = run_case(dataclasses.replace(approved, approve=False))
    assert unapproved.trajectory.kinds == ["blocked", "answer"]
    cut_short = run_case(dataclasses.replace(approved, step_budget=1))
    assert cut_short.trajectory.kinds == ["tool_result", "run_limit"]
    assert cut_short.script_finished is False  # the answer in the script was never played
