"""Stage 4: the threshold decides whether the corpus answers; below it the agent refuses."""

import json

import pytest

from fakes.scripted_model import ScriptedModel
from stages.s01_model.errors import CourseInputError
from stages.s01_model.trace import JsonlTrace
from stages.s02_tools.shop import load_shop
from stages.s02_tools.tools import shop_tools
from stages.s04_retrieval.agent import REFUSAL, GroundedAgent
from stages.s04_retrieval.retrieval import (
    THRESHOLD,
    Passage,
    load_policies,
    score,
    search,
    words,
)

GIFT = Passage("gift", "Gift cards", "Gift cards expire after three years.")
SHIPPING = Passage("ship", "Shipping", "Standard shipping is free over 50.")


def test_words_drop_stopwords_and_fold_plurals_and_past_tense():
    assert words("How long do refunds take?") == {"refund"}
    assert words("Returned items") == {"return", "item"}


def test_score_is_the_share_of_question_words_found():
    # question words {gift, card, expiry, rule}; the passage has gift and card: 2 of 4
    assert score("gift card expiry rules", GIFT) == 0.5
    assert score("Can I return a gift card?", GIFT) == pytest.approx(2 / 3)  # return missing
    assert score("?", GIFT) == 0.0  # no content words: nothing can match


def test_search_keeps_passages_at_or_above_the_threshold_best_first():
    hits = search("gift card shipping", [SHIPPING, GIFT], threshold=0.3)
    # question words {gift, card, shipping}: the gift passage has 2 of 3, shipping 1 of 3
    assert [(h.passage.id, round(h.score, 2)) for h in hits] == [("gift", 0.67), ("ship", 0.33)]
    assert search("gift card shipping", [SHIPPING, GIFT], threshold=2 / 3) == hits[:1]


def grounded(steps, threshold=THRESHOLD, trace=None):
    model = ScriptedModel.from_steps(steps)
    tools = shop_tools(load_shop())
    return GroundedAgent(model, tools, load_policies(), threshold=threshold, trace=trace)


CANADA = [
    {"call": "policy_search", "args": {"query": "Do you ship to Canada?"}},
    {"answer": "Yes, we ship to Canada in 3 to 5 days."},
]


@pytest.mark.failure_mode
def test_an_answer_after_an_empty_search_is_replaced_by_a_refusal():
    outcome = grounded(CANADA).run("Do you ship to Canada?")
    assert [s.kind for s in outcome.steps] == ["tool_result", "refusal"]
    assert outcome.answer == REFUSAL
    assert not any("Canada in 3 to 5 days" in s.text for s in outcome.steps)


def test_the_threshold_not_the_model_decides():
    # The best passage for the Canada question scores 0.5 ('order-changes' mentions ships);
    # lower the threshold below that and the same invented answer goes through.
    outcome = grounded(CANADA, threshold=0.4).run("Do you ship to Canada?")
    assert outcome.stopped == "answer" and "Canada" in (outcome.answer or "")


def test_an_answer_grounded_in_a_passage_is_passed_on():
    steps = [
        {"call": "policy_search", "args": {"query": "How long do refunds take?"}},
        {"answer": "Within 5 business days."},
    ]
    outcome = grounded(steps).run("How long do refunds take?")
    assert outcome.answer == "Within 5 business days."
    assert "[refund-timing, score 1.00]" in outcome.steps[0].text


def test_an_answer_without_any_policy_search_is_not_refused():
    steps = [{"call": "order_status", "args": {"order_id": "A1001"}}, {"answer": "Shipped."}]
    assert grounded(steps).run("Where is A1001?").answer == "Shipped."


def test_a_failed_search_in_one_run_does_not_refuse_the_next():
    agent = grounded([*CANADA, {"answer": "Hello!"}])
    assert agent.run("Do you ship to Canada?").stopped == "refusal"
    assert agent.run("Hi").answer == "Hello!"


def test_the_stage_4_trace_adds_the_best_score_of_each_search():
    trace = JsonlTrace()
    grounded(CANADA, trace=trace).run("Do you ship to Canada?")
    assert [(r["kind"], r["top_score"]) for r in trace.records] == [
        ("tool_result", 0.5),
        ("refusal", None),
    ]
    assert "run_id" not in trace.records[0]


@pytest.mark.failure_mode
def test_a_passage_without_text_is_named_by_its_position(tmp_path):
    path = tmp_path / "policies.json"
    path.write_text(json.dumps([{"id": "a", "title": "A", "text": "x"}, {"id": "b", "title": "B"}]))
    with pytest.raises(
        CourseInputError, match=r"policies.json: passage 2: missing or empty 'text'"
    ):
        load_policies(path)


def test_the_demo_answers_one_question_and_refuses_the_other(cli, tmp_path):
    result = cli("stages.s04_retrieval", "--trace", str(tmp_path / "s04.jsonl"))
    assert result.returncode == 0, result.stderr
    assert "stopped: answer" in result.stdout and "stopped: refusal" in result.stdout
