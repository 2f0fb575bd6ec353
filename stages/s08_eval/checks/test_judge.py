"""The judge protocol: raw text in, strict parsing, unavailability a state, every call counted."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes.judges import (
    BiasedJudge,
    OverBudgetJudge,
    ProseJudge,
    RateLimitedJudge,
    SteadyJudge,
    TimedOutJudge,
)
from stages.s08_eval.judge import (
    CountingJudge,
    Instrument,
    OverBudget,
    RateLimited,
    parse_comparison,
    parse_score,
    read,
    read_score,
)


@pytest.mark.parametrize(("raw", "value"), [("7", 7), (" 10\n", 10), ("0", 0), ("\t3 ", 3)])
def test_a_bare_integer_from_0_to_10_is_a_score(raw, value):
    assert parse_score(raw) == value


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    "raw",
    ["I would rate this 3 out of 10", "31", "7/10", "11", "-1", "5.0", "+5", "", "07", "seven"],
)
def test_anything_but_a_bare_score_is_unscored_with_the_raw_reply_kept(raw):
    reading = read(lambda: raw, parse_score)
    assert reading.value is None and reading.raw == raw
    assert reading.reason == "unparseable reply"


@given(st.text())
def test_no_text_parses_unless_it_is_exactly_a_number_from_0_to_10(text):
    bare = {str(n) for n in range(11)}
    assert (parse_score(text) is not None) == (text.strip() in bare)


@pytest.mark.parametrize(
    ("raw", "value"), [("first", "first"), (" Second\n", "second"), ("TIE", "tie")]
)
def test_a_comparison_is_one_of_three_words(raw, value):
    assert parse_comparison(raw) == value


@pytest.mark.failure_mode
@pytest.mark.parametrize("raw", ["The first one", "first.", "A", "both", "first or second"])
def test_a_comparison_in_prose_is_unscored(raw):
    assert parse_comparison(raw) is None


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("judge", "error"),
    [
        (RateLimitedJudge(), "RateLimited"),
        (TimedOutJudge(), "TimeoutError"),
        (OverBudgetJudge(), "OverBudget"),
    ],
)
def test_an_unavailable_judge_gives_an_unscored_reading_with_the_reason(judge, error):
    reading = read_score(judge, "task", "answer", "reference")
    assert reading.value is None and reading.raw is None
    assert reading.reason.startswith(f"judge unavailable: {error}: ")


@pytest.mark.failure_mode
def test_a_lost_connection_is_unavailable_too():
    def dropped():
        raise ConnectionError("reset by peer")

    assert read(dropped, parse_score).reason == "judge unavailable: ConnectionError: reset by peer"


@pytest.mark.failure_mode
def test_any_other_exception_is_a_harness_bug_and_propagates():
    def broken():
        raise KeyError("choices")

    with pytest.raises(KeyError):
        read(broken, parse_score)


@pytest.mark.failure_mode
def test_a_reply_that_is_not_text_is_unscored():
    reading = read(lambda: 7, parse_score)
    assert (reading.value, reading.raw) == (None, "7")
    assert reading.reason == "the reply is not text but int"


def test_the_counting_judge_passes_every_question_on_unchanged():
    class Echo:
        def score(self, task, answer, reference):
            return f"{task}|{answer}|{reference}"

        def compare(self, task, first, second):
            return f"{task}|{first}|{second}"

    counting = CountingJudge(Echo(), "echo")
    assert counting.score("t", "a", "r") == "t|a|r"
    assert counting.compare("t", "x", "y") == "t|x|y"
    assert (counting.calls, counting.name) == (2, "echo")


def test_every_call_is_counted_including_those_that_fail():
    counting = CountingJudge(RateLimitedJudge(), "rate-limited")
    read_score(counting, "t", "a", "r")
    with pytest.raises(RateLimited):
        counting.compare("t", "a", "b")
    assert counting.calls == 2


def test_the_biased_judge_follows_its_documented_rules():
    judge = BiasedJudge()
    # same text in both slots: the first slot's free point decides
    assert judge.compare("task", "same words", "same words") == "first"
    # reference fully grounded (10) is capped; a 0-grounded 80-character answer earns 80 // 40
    assert judge.score("t", "x" * 80, "refund") == "2"
    assert judge.score("t", "x" * 79, "refund") == "1"


def test_the_steady_judge_grades_content_only():
    judge = SteadyJudge()
    # reference words {refund, 5, business, day}: the answer has refund and 5 -> 2 of 4
    assert judge.score("t", "refund in 5", "refund in 5 business days") == "5"
    assert judge.score("t", "refund in 5" + " thanks" * 30, "refund in 5 business days") == "5"
    assert judge.compare("t", "same words", "same words") == "tie"


def test_the_failing_judges_fail_as_documented():
    with pytest.raises(OverBudget):
        OverBudgetJudge().score("t", "a", "r")
    assert parse_score(ProseJudge().score("t", "a", "r")) is None
    assert parse_comparison(ProseJudge().compare("t", "a", "b")) is None


def test_an_instrument_s_json_is_its_fields_in_order():
    described = {"model": "m", "endpoint": "h:1", "requests": 3, "paid_calls": 2,
                 "from_cache": 1, "kept_in": "the journal"}  # fmt: skip
    instrument = Instrument(
        "m", "h:1", requests=3, paid_calls=2, from_cache=1, kept_in="the journal"
    )
    assert (instrument.requests, instrument.paid_calls) == (3, 2)
    assert list(instrument.to_json().items()) == list(described.items())  # the same keys, in order
