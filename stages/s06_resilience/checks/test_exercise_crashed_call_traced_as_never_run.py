"""Exercise crashed-call-traced-as-never-run (write the check): a tool that ran once and raised
is traced with one try, so that zero tries still means a call that never ran.

`make exercise ID=crashed-call-traced-as-never-run` shows the planted bug. Replace the
`pytest.skip(...)` line below with a check that passes on the code as it is and fails with the
bug planted; then run `make exercise ID=crashed-call-traced-as-never-run` again to prove it.
"""

import pytest

# >>> main
from fakes.scripted_model import ScriptedModel
from stages.s01_model.trace import JsonlTrace
from stages.s02_tools.tools import Tool, ToolBox
from stages.s04_retrieval.retrieval import load_policies
from stages.s06_resilience.agent import ResilientAgent

# <<<


def test_crashed_call_traced_as_never_run():
    # >>> main
    ran = []

    def crashing_return(order_id):
        ran.append(order_id)  # the shop was reached before the crash
        raise KeyError("warehouse")

    tools = ToolBox(
        [
            Tool("start_return", "", {"order_id": str}, crashing_return, side_effect=True),
            Tool("cancel_order", "", {"order_id": str}, lambda order_id: "", side_effect=True),
        ]
    )
    steps: list[dict[str, object]] = [
        {"call": "start_return", "args": {"order_id": "A1002"}},
        {"call": "cancel_order", "args": {"order_id": "A1002"}},
        {"answer": "Something went wrong."},
    ]
    trace = JsonlTrace()
    agent = ResilientAgent(
        ScriptedModel.from_steps(steps),
        tools,
        load_policies(),
        approve=lambda call: call.name == "start_return",  # the cancel is never approved
        sleep=lambda _: None,
        trace=trace,
    )
    outcome = agent.run("Return A1002, or else cancel it.")
    assert ran == ["A1002"]  # the return ran exactly once: KeyError is not worth a retry
    assert outcome.steps[0].kind == "tool_error"
    assert "failed after 1 attempt(s): KeyError" in outcome.steps[0].text
    # one try for the call that ran and crashed; zero only for the call the gate stopped
    assert [(r["kind"], r["attempts"]) for r in trace.records] == [
        ("tool_error", 1),
        ("blocked", 0),
        ("answer", None),
    ]
    return
    # <<<
    pytest.skip(
        "exercise crashed-call-traced-as-never-run: write this check, then run"
        " `make exercise ID=crashed-call-traced-as-never-run`"
    )
