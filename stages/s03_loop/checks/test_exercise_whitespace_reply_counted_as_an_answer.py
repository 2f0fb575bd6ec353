"""Exercise whitespace-reply-counted-as-an-answer (write the check): a reply made only of
spaces and newlines ends the run with `no_answer` and no answer, like an empty one.

`make exercise ID=whitespace-reply-counted-as-an-answer` shows the planted bug. Replace the
`pytest.skip(...)` line below with a check that passes on the code as it is and fails with the
bug planted; then run `make exercise ID=whitespace-reply-counted-as-an-answer` again to prove it.
"""

import pytest

# >>> main
from fakes.scripted_model import ScriptedModel
from stages.s02_tools.shop import load_shop
from stages.s02_tools.tools import shop_tools
from stages.s03_loop.agent import Agent

# <<<


def test_whitespace_reply_counted_as_an_answer():
    # >>> main
    # a real model's "nothing": a newline and some spaces, after one tool call
    model = ScriptedModel.from_steps(
        [{"call": "order_status", "args": {"order_id": "A1001"}}, {"answer": "\n  \t\n"}]
    )
    outcome = Agent(model, shop_tools(load_shop())).run("Where is A1001?")
    assert [step.kind for step in outcome.steps] == ["tool_result", "no_answer"]
    assert outcome.stopped == "no_answer"
    assert outcome.answer is None
    return
    # <<<
    pytest.skip(
        "exercise whitespace-reply-counted-as-an-answer: write this check, then run "
        "`make exercise ID=whitespace-reply-counted-as-an-answer`"
    )
