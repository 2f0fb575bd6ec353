"""Exercise tries-on-a-step-with-no-tool (write the check): a step that called no tool (an
answer, a run that said nothing) carries `attempts` None, never a count of tries.

`make exercise ID=tries-on-a-step-with-no-tool` shows the planted bug. Replace the
`pytest.skip(...)` line below with a check that passes on the code as it is and fails with the
bug planted; then run `make exercise ID=tries-on-a-step-with-no-tool` again to prove it.
"""

import pytest

# >>> main
from fakes.scripted_model import ScriptedModel
from stages.s06_resilience.resilience import Resilience
from stages.s07_tracing.agent import run

# <<<


def test_tries_on_a_step_with_no_tool():
    # >>> main
    quick = Resilience(timeout_s=0.05, attempts=2, backoff_s=0.0)
    # A1005 goes with QuickShip, which refuses the first connection (fails_first 1 in
    # fixtures/shop.json): the estimate takes 2 tries, and the answer after it takes none
    task = "When will A1005 arrive?"
    steps: list[dict[str, object]] = [
        {"call": "delivery_estimate", "args": {"order_id": "A1005"}},
        {"answer": "Soon."},
    ]
    trajectory = run(task, ScriptedModel.from_steps(steps, task), resilience=quick)
    assert [(s.kind, s.attempts) for s in trajectory.steps] == [
        ("tool_result", 2),
        ("answer", None),
    ]
    # a run that calls no tool at all: its one step is n/a too, not "0 tries" like a blocked call
    silent = run("Hello?", ScriptedModel.from_steps([{"fault": "empty_reply"}], "Hello?"))
    assert [(s.kind, s.attempts) for s in silent.steps] == [("no_answer", None)]
    return
    # <<<
    pytest.skip(
        "exercise tries-on-a-step-with-no-tool: write this check, then run"
        " `make exercise ID=tries-on-a-step-with-no-tool`"
    )
