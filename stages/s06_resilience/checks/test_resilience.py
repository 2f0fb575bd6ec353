"""Stage 6: deadlines, retries with backoff, errors as observations, and the confirm gate."""

import threading
from dataclasses import replace

import pytest

from fakes.scripted_model import HANGING_ORDER, ScriptedModel
from stages.s01_model.model import ToolCall
from stages.s01_model.trace import JsonlTrace
from stages.s02_tools.shop import load_shop
from stages.s02_tools.tools import Tool, ToolBox, shop_tools
from stages.s04_retrieval.retrieval import load_policies
from stages.s06_resilience.agent import ResilientAgent
from stages.s06_resilience.resilience import Resilience, call_with_timeout, with_retries

QUICK = Resilience(timeout_s=0.05, attempts=3, backoff_s=0.01, factor=2.0)


class FailsThenAnswers:
    """A callable that raises the given errors in turn, then returns 'ok'; counts its calls."""

    def __init__(self, *errors):
        self.errors = list(errors)
        self.calls = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "ok"


def test_delays_grow_by_the_factor():
    # attempts 4 means 3 waits: 0.1, 0.1 * 3, 0.1 * 3 * 3
    assert Resilience(attempts=4, backoff_s=0.1, factor=3.0).delays() == pytest.approx(
        [0.1, 0.3, 0.9]
    )
    assert Resilience(attempts=1).delays() == []


def test_transient_failures_are_retried_after_the_backoff_waits():
    waits: list[float] = []
    flaky = FailsThenAnswers(ConnectionError("refused"), TimeoutError("slow"))
    assert with_retries(flaky, QUICK, waits.append) == ("ok", 3)
    assert waits == pytest.approx([0.01, 0.02])


@pytest.mark.failure_mode
def test_a_non_transient_error_is_not_retried():
    broken = FailsThenAnswers(ValueError("bad data"))
    with pytest.raises(ValueError, match="bad data"):
        with_retries(broken, QUICK, lambda _: None)
    assert broken.calls == 1


def test_when_every_try_fails_the_last_error_says_how_many_tries():
    down = FailsThenAnswers(*[ConnectionError(f"refused {n}") for n in range(3)])
    with pytest.raises(ConnectionError, match="refused 2") as raised:
        with_retries(down, QUICK, lambda _: None)
    assert getattr(raised.value, "attempts", None) == 3 and down.calls == 3


@pytest.mark.failure_mode
def test_a_call_past_its_deadline_is_abandoned_with_a_timeout():
    release = threading.Event()
    with pytest.raises(TimeoutError, match=r"no answer within 0\.05 s"):
        call_with_timeout(release.wait, 0.05)
    release.set()  # let the abandoned thread finish
    assert call_with_timeout(lambda: 42, 1.0) == 42
    with pytest.raises(KeyError):
        call_with_timeout(FailsThenAnswers(KeyError("missing")), 1.0)


def agent_for(steps, tools=None, shop=None, approve=None, trace=None):
    shop = shop or load_shop()
    options = {"approve": approve} if approve else {}
    agent = ResilientAgent(
        ScriptedModel.from_steps(steps),
        tools or shop_tools(shop),
        load_policies(),
        resilience=QUICK,
        sleep=lambda _: None,
        trace=trace,
        **options,
    )
    return agent, shop


def test_a_flaky_carrier_is_retried_into_a_result():
    trace = JsonlTrace()
    steps = [{"call": "delivery_estimate", "args": {"order_id": "A1005"}}, {"answer": "Soon."}]
    agent, _ = agent_for(steps, trace=trace)
    outcome = agent.run("When will A1005 arrive?")
    assert outcome.steps[0].kind == "tool_result"
    assert trace.records[0]["attempts"] == 2  # QuickShip refuses once (fails_first 1)


@pytest.mark.failure_mode
def test_a_hanging_tool_becomes_a_tool_error_and_the_run_goes_on():
    shop = load_shop()
    hanging = shop.orders[HANGING_ORDER].carrier
    shop.carriers[hanging] = replace(shop.carriers[hanging], hang_seconds=0.3)
    agent, _ = agent_for([{"fault": "tool_timeout"}, {"answer": "Not known yet."}], shop=shop)
    outcome = agent.run("When will A1009 arrive?")
    assert [s.kind for s in outcome.steps] == ["tool_error", "answer"]
    assert "failed after 3 attempt(s): TimeoutError" in outcome.steps[0].text
    assert outcome.answer == "Not known yet."


@pytest.mark.failure_mode
def test_a_tool_that_raises_becomes_a_tool_error_tried_once():
    buggy = FailsThenAnswers(KeyError("warehouse"))
    tools = ToolBox([Tool("stock", "Stock level.", {"sku": str}, buggy)])
    steps = [{"call": "stock", "args": {"sku": "X"}}, {"answer": "Unknown."}]
    outcome = agent_for(steps, tools=tools)[0].run("Is X in stock?")
    assert outcome.steps[0].kind == "tool_error"
    assert "KeyError" in outcome.steps[0].text and buggy.calls == 1


RETURN = {"call": "start_return", "args": {"order_id": "A1002", "reason": "too small"}}


@pytest.mark.failure_mode
def test_a_side_effecting_call_without_approval_is_blocked_and_changes_nothing():
    agent, shop = agent_for([RETURN, {"answer": "Please confirm."}])
    outcome = agent.run("Return A1002.")
    assert outcome.steps[0].kind == "blocked"
    assert shop.returns == []


def test_an_approved_return_goes_through():
    agent, shop = agent_for([RETURN, {"answer": "Started."}], approve=lambda call: True)
    assert agent.run("Return A1002.").steps[0].kind == "tool_result"
    assert shop.returns == ["A1002"]


@pytest.mark.failure_mode
def test_a_side_effecting_tool_is_never_retried():
    # A retry after a dropped connection could start the same return twice.
    flaky_return = FailsThenAnswers(ConnectionError("reset"))
    tools = ToolBox([Tool("start_return", "", {"order_id": str}, flaky_return, side_effect=True)])
    steps = [{"call": "start_return", "args": {"order_id": "A1002"}}, {"answer": "Failed."}]
    agent, _ = agent_for(steps, tools=tools, approve=lambda call: True)
    assert agent.run("Return A1002.").steps[0].kind == "tool_error"
    assert flaky_return.calls == 1


@pytest.mark.failure_mode
def test_a_timed_out_side_effect_is_not_reported_as_undone():
    release = threading.Event()
    slow = Tool("start_return", "", {"order_id": str}, lambda order_id: str(release.wait()), True)
    steps = [{"call": "start_return", "args": {"order_id": "A1002"}}, {"answer": "Unsure."}]
    agent, _ = agent_for(steps, tools=ToolBox([slow]), approve=lambda call: True)
    step = agent.run("Return A1002.").steps[0]
    release.set()
    assert step.kind == "tool_error"
    assert step.text.endswith("it may still complete, so check before trying again")


def test_the_gate_sees_the_exact_call():
    seen = []
    agent, _ = agent_for([RETURN, {"answer": "ok"}], approve=lambda call: seen.append(call))
    agent.run("Return A1002.")
    assert seen == [ToolCall("start_return", {"order_id": "A1002", "reason": "too small"})]


def test_the_stage_6_trace_stamps_time_and_tries_but_no_run():
    trace = JsonlTrace()
    agent, _ = agent_for([RETURN, {"answer": "ok"}], trace=trace)
    agent.run("Return A1002.")
    assert set(trace.records[0]) == {"ts", "turn", "step", "kind", "tool", "attempts", "text"}


def test_the_demo_survives_a_rough_day(cli, tmp_path):
    result = cli("stages.s06_resilience", "--trace", str(tmp_path / "s06.jsonl"))
    assert result.returncode == 0, result.stderr
    for kind in ("tool_error", "blocked", "tool_result start_return"):
        assert kind in result.stdout
    assert "returns started: ['A1002']" in result.stdout
