"""Twins a model makes are held to stage 9's check, every one of them, before a person reads
ten. A loopback stand-in plays the model: it pads every answer, and adds a figure to some."""

import json

import pytest

from fakes.chat_server import ChatServer, Reply
from stages.s09_calibration.calibration import load_calibration
from stages.s09_calibration.twins import added_facts
from stages.s12_real_judge.client import OpenAIJudge
from stages.s12_real_judge.settings import Settings
from stages.s13_local_model.padding import SAMPLE, pad, problems, review, summary


def padder(request):
    """Restates, keeps the answer, sums up; for answers of even length, invents a delay."""
    answer = request["messages"][-1]["content"].split("\n\nAnswer: ", 1)[1]
    invented = "\n\nIt takes 99 days." if len(answer) % 2 == 0 else ""
    return Reply(f"You asked us a question.\n\n{answer}{invented}\n\nThat is all there is to it.")


def test_every_model_twin_is_checked_and_only_those_that_add_nothing_are_kept(tmp_path):
    cases = load_calibration()
    with ChatServer(default=padder) as server:
        judge = OpenAIJudge("m", Settings(journal=""), api_key="", base_url=server.url)
        padded = pad(judge, cases)
    invented = {case.id for case in cases if len(case.answer) % 2 == 0}
    assert 0 < len(invented) < len(cases)
    assert {p.case.id for p in padded if not p.passed} == invented
    assert all(p.problems[0] == "adds figure 99" for p in padded if p.case.id in invented)
    assert summary(padded)[0] == (
        f"model-made twins: {len(invented)} of {len(cases)} rejected (0 change the answer, "
        f"0 pad nothing, {len(invented)} add a fact); 0 not made: the model gave no reply"
    )
    assert len(server.requests) == len(cases)  # one question a case, asked ahead, none twice
    assert all(request["max_tokens"] == 300 for request in server.requests)
    path = tmp_path / "twins.jsonl"
    assert review(padded, path) == SAMPLE
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    by_id = {case.id: case for case in cases}
    assert len({row["id"] for row in rows}) == SAMPLE
    assert all(not added_facts(by_id[row["id"]], row["twin"]) for row in rows)


@pytest.mark.failure_mode
def test_a_twin_that_changes_the_answer_is_rejected_whatever_it_adds():
    case = load_calibration()[0]
    shortened = case.answer.split("\n")[0]  # the model "summarised" instead of keeping it
    assert problems(case, f"In short:\n\n{shortened}") == ("changes the answer",)
    respaced = "  ".join(case.answer.split())  # spacing is not the answer
    assert problems(case, f"You asked.\n\n{respaced}\n\nThat is all.") == ()
    assert problems(case, respaced) == ("pads nothing",)  # the answer alone is no twin


@pytest.mark.failure_mode
def test_pad_needs_a_model(cli, one_line_error):
    one_line_error(cli("stages.s13_local_model", "pad", "--judge", "steady"), "needs a model")
