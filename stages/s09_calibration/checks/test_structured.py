"""Structured replies are held to their shape; anything else is unscored, loudly."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes.judges import JsonJudge
from stages.s08_eval.judge import CountingJudge
from stages.s09_calibration.calibrate import calibrate
from stages.s09_calibration.calibration import load_calibration, load_twins
from stages.s09_calibration.structured import json_reason, parse_json_score


def test_a_well_formed_reply_gives_its_score_and_reason():
    raw = '{"score": 7, "reason": "states both facts"}'
    assert parse_json_score(raw) == 7
    assert json_reason(raw) == "states both facts"


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    "raw",
    [
        'Sure! {"score": 7, "reason": "ok"}',
        '{"score": 7.0, "reason": "ok"}',
        '{"score": "7", "reason": "ok"}',
        '{"score": true, "reason": "ok"}',
        '{"score": 11, "reason": "ok"}',
        '{"score": 7}',
        '{"score": 7, "reason": "ok", "confidence": 0.9}',
        '{"score": 7, "reason": null}',
        "[7]",
        "7",
        "",
    ],
)
def test_anything_else_is_unscored(raw):
    assert parse_json_score(raw) is None
    assert json_reason(raw) is None


@given(st.integers(min_value=0, max_value=10), st.text())
def test_every_valid_score_and_reason_round_trips(score, reason):
    assert parse_json_score(json.dumps({"reason": reason, "score": score})) == score


@pytest.mark.failure_mode
def test_a_judge_replying_in_json_read_as_bare_numbers_is_all_unscored_and_counted():
    cases, twins = load_calibration()[:4], load_twins()
    as_bare = calibrate(CountingJudge(JsonJudge(), "json"), cases, twins, reply="bare")
    as_json = calibrate(CountingJudge(JsonJudge(), "json"), cases, twins, reply="json")
    assert as_bare["unscored"] == as_bare["judge"]["calls"] - as_bare["pairwise"]["calls"]
    assert as_bare["calibration"]["scored"] == 0 and as_bare["verbosity"]["n"] == 0
    assert as_json["unscored"] == 0 and as_json["calibration"]["scored"] == 4
