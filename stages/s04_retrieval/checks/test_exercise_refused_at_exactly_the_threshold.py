"""Exercise refused-at-exactly-the-threshold (write the check): a search whose best passage
scores exactly the threshold grounds the answer; the agent passes it on instead of refusing.

`make exercise ID=refused-at-exactly-the-threshold` shows the planted bug. Replace the
`pytest.skip(...)` line below with a check that passes on the code as it is and fails with the
bug planted; then run `make exercise ID=refused-at-exactly-the-threshold` again to prove it.
"""

import pytest

# >>> main
from fakes.scripted_model import ScriptedModel
from stages.s02_tools.shop import load_shop
from stages.s02_tools.tools import shop_tools
from stages.s04_retrieval.agent import GroundedAgent
from stages.s04_retrieval.retrieval import load_policies, search

# <<<


def test_refused_at_exactly_the_threshold():
    # >>> main
    question = "Do gift cards stay valid forever?"
    # content words {gift, card, stay, valid, forever}; the gift-cards passage ("Gift cards
    # are valid for 3 years ...") has gift, card and valid: 3 of 5 = 0.6, the threshold itself
    policies = load_policies()
    hits = search(question, policies, threshold=0.6)
    assert [(hit.passage.id, hit.score) for hit in hits] == [("gift-cards", 0.6)]
    model = ScriptedModel.from_steps(
        [
            {"call": "policy_search", "args": {"query": question}},
            {"answer": "No: gift cards are valid for 3 years."},
        ]
    )
    agent = GroundedAgent(model, shop_tools(load_shop()), policies, threshold=0.6)
    outcome = agent.run(question)
    assert [step.kind for step in outcome.steps] == ["tool_result", "answer"]
    assert outcome.answer == "No: gift cards are valid for 3 years."
    return
    # <<<
    pytest.skip(
        "exercise refused-at-exactly-the-threshold: write this check, then run "
        "`make exercise ID=refused-at-exactly-the-threshold`"
    )
