"""Stage 5: preferences outlive the turn; secrets are refused and never written anywhere."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes.scripted_model import ScriptedModel
from stages.s01_model.trace import JsonlTrace
from stages.s02_tools.shop import load_shop
from stages.s02_tools.tools import shop_tools
from stages.s04_retrieval.retrieval import load_policies
from stages.s05_memory.agent import WITHHELD, MemoryAgent
from stages.s05_memory.memory import Memory, luhn_valid, secret_reason

CARD = "4111 1111 1111 1111"  # the well-known test Visa number; it passes the Luhn check


def luhn_check_digit(body: str) -> str:
    """An independent Luhn: the check digit that makes sum(digits of 2*d, d, ...) % 10 == 0."""
    digits = [int(c) for c in body]
    total = 0
    for i, d in enumerate(reversed(digits)):  # the rightmost body digit will be doubled
        total += sum(divmod(d * 2, 10)) if i % 2 == 0 else d
    return str((10 - total % 10) % 10)


def test_luhn_accepts_known_numbers_and_rejects_a_changed_digit():
    assert luhn_valid("79927398713")  # the textbook example
    assert luhn_valid(CARD.replace(" ", ""))
    assert not luhn_valid("4111111111111112")


@given(st.text(alphabet="0123456789", min_size=15, max_size=15), st.sampled_from([" ", "-", ""]))
def test_any_luhn_valid_card_number_is_flagged_however_it_is_spaced(body, sep):
    number = body + luhn_check_digit(body)
    spaced = sep.join(number[i : i + 4] for i in range(0, 16, 4))
    assert secret_reason(f"my card is {spaced}") == "it looks like a payment card number"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("password is hunter2", "it looks like a password or PIN"),
        ("PIN: 4821", "it looks like a password or PIN"),
        ("the cvv is on the back", "it mentions a card security code"),
        ("sk-live_abcdefghijklmnop1234", "it looks like an access key or token"),
    ],
)
def test_other_secrets_are_flagged_with_their_reason(text, reason):
    assert secret_reason(text) == reason


@pytest.mark.parametrize(
    "text", ["Sam", "by email, not SMS", "order A1001", "4111 1111 1111 1112", "call 0612345678"]
)
def test_ordinary_preferences_are_not_secrets(text):
    assert secret_reason(text) is None


def make_agent(steps, trace=None):
    model = ScriptedModel.from_steps(steps)
    agent = MemoryAgent(model, shop_tools(load_shop()), load_policies(), trace=trace)
    return agent, model


def test_a_preference_stored_in_one_turn_opens_the_next():
    agent, model = make_agent(
        [
            {"call": "remember", "args": {"key": "name", "value": "Sam"}},
            {"answer": "Hi Sam."},
            {"answer": "Sure, Sam."},
        ]
    )
    agent.run("I'm Sam.")
    agent.run("Can you help?")
    first_turn_system, second_turn_system = model.calls[0][0], model.calls[2][0]
    assert "name: Sam" not in first_turn_system.content
    assert second_turn_system.content.endswith("What you know about this customer: name: Sam.")


@pytest.mark.failure_mode
def test_a_card_number_written_as_the_key_is_withheld_from_the_step_and_the_trace():
    trace = JsonlTrace()
    agent, _ = make_agent(
        [{"call": "remember", "args": {"key": CARD, "value": "my card"}}, {"answer": "Can't."}],
        trace=trace,
    )
    outcome = agent.run("Keep my card.")
    assert outcome.steps[0].arguments == {"key": WITHHELD, "value": WITHHELD}
    everything = json.dumps([trace.records, [s.__dict__ for s in outcome.steps]])
    assert "4111" not in everything and agent.memory.facts == {}


@pytest.mark.failure_mode
def test_a_card_number_is_refused_and_appears_in_no_step_memory_or_trace():
    trace = JsonlTrace()
    agent, _ = make_agent(
        [{"call": "remember", "args": {"key": "card", "value": CARD}}, {"answer": "Can't."}],
        trace=trace,
    )
    outcome = agent.run("Keep my card.")
    refused = outcome.steps[0]
    assert refused.kind == "secret_refused"
    assert refused.arguments == {"key": "card", "value": WITHHELD}
    assert agent.memory.facts == {}
    assert agent.refusals == ["it looks like a payment card number"]
    everything = json.dumps([trace.records, [s.__dict__ for s in outcome.steps]])
    assert "4111" not in everything


@pytest.mark.failure_mode
def test_the_key_is_checked_too_not_only_the_value():
    assert Memory().store("password is hunter2", "yes") == "it looks like a password or PIN"


def test_the_stage_5_trace_numbers_turns_but_not_runs():
    trace = JsonlTrace()
    agent, _ = make_agent([{"answer": "one"}, {"answer": "two"}], trace=trace)
    agent.run("first")
    agent.run("second")
    assert [(r["turn"], r["step"]) for r in trace.records] == [(1, 0), (2, 0)]
    assert not any("run_id" in r for r in trace.records)


def test_the_demo_remembers_the_name_and_not_the_card(cli, tmp_path):
    result = cli("stages.s05_memory", "--trace", str(tmp_path / "s05.jsonl"))
    assert result.returncode == 0, result.stderr
    assert "memory: name: Sam; updates: by email, not SMS" in result.stdout
    assert "secret_refused" in result.stdout
    assert "4111" not in (tmp_path / "s05.jsonl").read_text()


@pytest.mark.failure_mode
def test_a_script_too_short_for_the_demo_is_one_line_and_exit_2(cli, one_line_error, tmp_path):
    script = tmp_path / "short.json"
    script.write_text(json.dumps({"task": "Hi, I'm Sam.", "steps": [{"answer": "Hi Sam."}]}))
    result = cli("stages.s05_memory", "--script", str(script), "--trace", str(tmp_path / "t"))
    one_line_error(result, "short.json: expected step 2, but the script has only 1")
