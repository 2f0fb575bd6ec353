"""Stage 3: the loop runs to an answer, and the step budget stops a model that never does."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes.scripted_model import ScriptedModel
from stages.s01_model.trace import JsonlTrace
from stages.s02_tools.shop import load_shop
from stages.s02_tools.tools import shop_tools
from stages.s03_loop.agent import Agent

STATUS = {"call": "order_status", "args": {"order_id": "A1001"}}


def agent_for(steps, max_steps=6, trace=None):
    model = ScriptedModel.from_steps(steps)
    return Agent(model, shop_tools(load_shop()), max_steps=max_steps, trace=trace), model


def test_a_run_calls_tools_feeds_results_back_and_ends_with_the_answer():
    agent, model = agent_for([STATUS, {"answer": "It shipped."}])
    outcome = agent.run("Where is A1001?")
    assert [s.kind for s in outcome.steps] == ["tool_result", "answer"]
    assert (outcome.answer, outcome.stopped) == ("It shipped.", "answer")
    # the second model call saw the tool's result as the last message
    last = model.calls[1][-1]
    assert last.role == "tool" and last.content.startswith("Order A1001: shipped")


@pytest.mark.failure_mode
def test_a_model_that_never_answers_is_stopped_by_the_budget():
    agent, _ = agent_for([STATUS, {"fault": "never_answers"}], max_steps=4)
    outcome = agent.run("Where is A1001?")
    assert [s.kind for s in outcome.steps] == ["tool_result"] * 4 + ["run_limit"]
    assert outcome.answer is None and outcome.stopped == "run_limit"


@given(st.integers(min_value=1, max_value=12))
def test_the_budget_allows_exactly_max_steps_replies(max_steps):
    # max_steps - 1 tool calls and then an answer: the answer is the last reply allowed
    steps = [STATUS] * (max_steps - 1) + [{"answer": "done"}]
    agent, _ = agent_for(steps, max_steps=max_steps)
    assert agent.run("t").stopped == "answer"
    # one more tool call and the same budget runs out before the answer is read
    agent, model = agent_for([STATUS, *steps], max_steps=max_steps)
    assert agent.run("t").stopped == "run_limit"
    assert not model.finished


@pytest.mark.failure_mode
def test_an_empty_reply_is_no_answer_not_an_empty_answer():
    agent, _ = agent_for([{"fault": "empty_reply"}])
    outcome = agent.run("Hello?")
    assert [s.kind for s in outcome.steps] == ["no_answer"]
    assert outcome.answer is None


@pytest.mark.failure_mode
def test_an_unknown_tool_is_shown_to_the_model_and_the_run_goes_on():
    agent, model = agent_for([{"fault": "unknown_tool"}, STATUS, {"answer": "It shipped."}])
    outcome = agent.run("Where is A1001?")
    assert [s.kind for s in outcome.steps] == ["unknown_tool", "tool_result", "answer"]
    assert "no tool 'refund_everything'" in model.calls[1][-1].content


def test_a_budget_below_one_is_refused():
    with pytest.raises(ValueError, match="max_steps must be at least 1, got 0"):
        agent_for([STATUS], max_steps=0)


def test_stage_3_step_numbers_restart_so_two_runs_cannot_be_told_apart():
    # Nothing in a stage-3 line names its run.
    trace = JsonlTrace()
    for _ in range(2):
        agent, _ = agent_for([STATUS, {"answer": "It shipped."}], trace=trace)
        agent.run("Where is A1001?")
    assert [r["step"] for r in trace.records] == [0, 1, 0, 1]
    assert trace.records[:2] == trace.records[2:]  # identical lines from different runs


def test_the_demo_shows_an_answer_and_a_run_limit(cli, tmp_path):
    result = cli("stages.s03_loop", "--trace", str(tmp_path / "s03.jsonl"))
    assert result.returncode == 0, result.stderr
    assert "stopped: answer" in result.stdout and "stopped: run_limit" in result.stdout
