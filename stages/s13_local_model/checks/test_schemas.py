"""Structured replies asked for and unwrapped strictly; without a form, the judge asks and
journals as stage 12's does. A loopback server (fakes/chat_server.py) plays the model."""

import pytest

from fakes.chat_server import ChatServer, Reply
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.judge import read_comparison, read_score
from stages.s12_real_judge.client import OpenAIJudge
from stages.s12_real_judge.settings import Settings, load_settings
from stages.s13_local_model.schemas import StructuredJudge, StructuredSettings


def structured_judge(server, tmp_path, form="json_object"):
    settings = StructuredSettings(structured=form, journal=str(tmp_path / "journal.sqlite"))
    return StructuredJudge("m", settings, api_key="", base_url=server.url)


@pytest.mark.failure_mode
def test_a_structured_reply_is_read_only_when_it_is_exactly_the_schema(tmp_path):
    replies = ['{"score": 7}', '{"score": 11}', '{"score": 7, "reason": "x"}', '{"score": "7"}',
               'The answer is 10.', '{"verdict": "second"}', '{"verdict": "both"}']  # fmt: skip
    with ChatServer([Reply(text) for text in replies]) as server:
        judge = structured_judge(server, tmp_path)
        scores = [read_score(judge, "t", f"answer {n}", "r") for n in range(5)]
        verdicts = [read_comparison(judge, "t", f"a{n}", "b") for n in range(2)]
    assert [reading.value for reading in scores] == [7, None, None, None, None]
    assert [reading.raw for reading in scores[1:]] == replies[1:5]  # kept as the server sent them
    assert [reading.value for reading in verdicts] == ["second", None]
    sent = [request["response_format"] for request in server.requests]
    assert sent[0] == {"type": "json_object", "schema": {
        "type": "object", "properties": {"score": {"type": "integer", "minimum": 0, "maximum": 10}},
        "required": ["score"], "additionalProperties": False}}  # fmt: skip
    assert sent[5]["schema"]["properties"] == {
        "verdict": {"type": "string", "enum": ["first", "second", "tie"]}
    }
    assert '{"score": <integer from 0 to 10>}' in server.requests[0]["messages"][-1]["content"]


def test_openai_s_form_of_a_schema_and_bare_replies_without_one(tmp_path):
    with ChatServer([Reply('{"score": 4}'), Reply("4")]) as server:
        assert structured_judge(server, tmp_path / "a", "json_schema").score("t", "a", "r") == "4"
        assert structured_judge(server, tmp_path / "b", "").score("t", "a", "r") == "4"
    schema_form, bare = server.requests
    assert schema_form["response_format"]["type"] == "json_schema"
    assert schema_form["response_format"]["json_schema"]["strict"] is True
    assert "response_format" not in bare


@pytest.mark.failure_mode
def test_a_structured_form_the_client_does_not_know_is_refused(tmp_path):
    path = tmp_path / "judge.toml"
    path.write_text('structured = "xml"\n')
    with pytest.raises(CourseInputError, match=r"structured must be one of .*got 'xml'"):
        load_settings(path, StructuredSettings())


def test_without_a_form_the_judge_asks_and_journals_as_stage_12_s(tmp_path):
    journal = str(tmp_path / "journal.sqlite")
    with ChatServer([Reply("6")]) as server:
        bare = StructuredJudge(
            "m", StructuredSettings(journal=journal), api_key="", base_url=server.url
        )
        assert bare.score("t", "a", "r") == "6"
        plain = OpenAIJudge("m", Settings(journal=journal), api_key="", base_url=server.url)
        assert plain.score("t", "a", "r") == "6"  # found in the journal, under the same key
    assert len(server.requests) == 1 and "response_format" not in server.requests[0]
