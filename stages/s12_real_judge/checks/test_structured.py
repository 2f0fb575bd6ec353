"""Structured replies asked for and unwrapped strictly, and a judge journalled by what it is, not
where it is served. A loopback server (fakes/chat_server.py) plays the model."""

import pytest

from fakes.chat_server import ChatServer, Reply
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.judge import read_comparison, read_score
from stages.s12_real_judge.client import OpenAIJudge
from stages.s12_real_judge.settings import Settings, load_settings


def structured_judge(server, tmp_path, form="json_object"):
    settings = Settings(structured=form, journal=str(tmp_path / "journal.sqlite"))
    return OpenAIJudge("m", settings, api_key="", base_url=server.url)


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
        load_settings(path)


def test_a_local_model_is_journalled_by_its_file_not_its_port(tmp_path):
    settings = Settings(journal=str(tmp_path / "journal.sqlite"))
    with ChatServer() as first, ChatServer() as second:
        for server in (first, second):
            judge = OpenAIJudge("m", settings, base_url=server.url, identity="local:abc")
            assert judge.score("t", "a", "r") == "7"
    assert (len(first.requests), len(second.requests)) == (1, 0)  # the second run paid nothing
