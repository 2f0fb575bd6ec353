"""Structured replies are held to their shape; anything else is unscored, loudly."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes.judges import JsonJudge
from stages.s08_eval.judge import CountingJudge
from stages.s09_calibration.calibrate import calibrate
from stages.s09_calibration.calibration import load_calibration
from stages.s09_calibration.twins import load_twins
from stages.s10_agreement.people import asking
from stages.s10_agreement.structured import Reply, json_reason, parse_json_score


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
    cases = load_calibration()[:4]
    twins = load_twins(cases)
    as_bare = calibrate(CountingJudge(JsonJudge(), "json"), cases, twins, asking=asking(Reply.BARE))
    as_json = calibrate(CountingJudge(JsonJudge(), "json"), cases, twins, asking=asking(Reply.JSON))
    unusable = as_bare.unscored
    assert unusable.count == as_bare.judge.calls - as_bare.pairwise.calls
    assert unusable.reasons == {"unparseable reply": unusable.count}
    assert unusable.example is not None
    assert json.loads(unusable.example)["score"] in range(11)  # the JSON, kept as given
    assert as_bare.verbosity.n == 0 and as_bare.verbosity.state == "not_evaluated"
    assert as_bare.scores == dict.fromkeys(as_bare.scores)  # no answer has a score
    assert as_json.unscored.count == 0 and None not in as_json.scores.values()


@pytest.mark.failure_mode
def test_a_judge_that_does_not_answer_in_json_is_told_apart_in_the_report(cli, tmp_path):
    # the steady judge replies bare numbers; asked for JSON, every score is unscored and the
    # report says what came back and what was asked for
    result = cli("stages.s10_agreement", "report", "--judge", "steady", "--reply", "json",
                 "--out", str(tmp_path / "r.json"))  # fmt: skip
    assert result.returncode == 1
    header = next(line for line in result.stdout.splitlines() if line.startswith("judge: "))
    # 48 answers and 96 twins, each scored 3 times: 432 unusable scores; 48 comparisons read
    assert header.startswith("judge: steady (480 calls, 432 unscored (432 unparseable reply); e.g.")
    assert header.endswith(
        "asked for strict JSON with exactly the keys ['reason', 'score'], score 0-10)"
    )
