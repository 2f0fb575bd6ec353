"""Canaries: a judge its provider updated under the same name is found out; an unchanged one
(the mirrored half) is not; a judge that does not answer is not evaluated, never unchanged."""

import json
from contextlib import ExitStack
from pathlib import Path

import pytest

from fakes.judges import HangingJudge, SteadyJudge, VersionedJudge, updated_judge
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.findings import Finding
from stages.s12_real_judge.client import OpenAIJudge
from stages.s16_history.canary import (
    CANARIES,
    asked_anew,
    check,
    questions,
    record,
    recorded,
    replies,
    unfinished,
)


def test_an_updated_judge_is_found_and_an_unchanged_one_is_not(cli):
    result = cli("stages.s16_history", "canary", "--json")
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    steady, updated = found["steady (steady)"], found["fakes.judges:updated_judge (shop-judge)"]
    assert (steady["state"], steady["changed"]) == ("not_found", 0)
    assert updated["state"] == "found" and updated["changed"] > 0
    # what the update changed is scoring by length; it compares as before
    assert all(qid.startswith("score ") for qid in updated["which"])
    expected = [
        qid for qid, method, texts in questions()
        if method == "score" and updated_judge().score(*texts) != VersionedJudge().score(*texts)
    ]  # fmt: skip
    assert updated["which"] == expected


def test_the_replayed_local_model_answers_its_canaries_as_recorded(cli):
    result = cli("stages.s16_history", "canary", "--judge", "replay")
    assert result.returncode == 0, result.stderr
    assert "unchanged: 0 of 12 replies differ" in result.stdout


@pytest.mark.failure_mode
def test_a_judge_that_does_not_answer_is_not_evaluated_never_unchanged():
    found = check("shop-judge", {})
    assert found.state == Finding.NOT_EVALUATED and found.verdict is None
    assert found.outcome.reason.startswith("too little usable data: 0 usable of 12")


@pytest.mark.failure_mode
def test_a_judge_with_nothing_recorded_is_one_line_before_it_is_asked(cli, one_line_error):
    one_line_error(cli("stages.s16_history", "canary", "--judge", "biased"), "nothing recorded")
    before = HangingJudge.calls  # a judge that hangs is never asked: the answer is known
    one_line_error(cli("stages.s16_history", "canary", "--judge", "fakes.judges:HangingJudge",
                       "--judge-timeout", "0.2"),  # asked by mistake, it turns red in a second
                   "nothing recorded for 'fakes.judges:HangingJudge'")  # fmt: skip
    assert HangingJudge.calls == before
    with pytest.raises(CourseInputError, match="record it with --record"):
        check("no-such-judge", replies(SteadyJudge()))


def test_recording_replaces_one_instrument_and_keeps_the_others(tmp_path):
    path = tmp_path / "canaries.jsonl"
    record("a", {"q2": "7", "q1": "3"}, path)
    record("b", {"q1": "5"}, path)
    record("a", {"q1": "4"}, path)
    assert recorded("a", path) == {"q1": "4"} and recorded("b", path) == {"q1": "5"}
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert rows == sorted(rows, key=lambda row: (row["instrument"], row["id"]))


def test_changes_up_to_the_threshold_are_allowed(cli):
    result = cli("stages.s16_history", "canary", "--judge", "fakes.judges:updated_judge",
                 "--threshold", "8")  # fmt: skip
    assert result.returncode == 0, result.stdout
    assert (
        "unchanged: 8 of 12 replies differ from the recording, at most 8 allowed" in result.stdout
    )
    tighter = cli("stages.s16_history", "canary", "--judge", "fakes.judges:updated_judge",
                  "--threshold", "7")  # fmt: skip
    assert tighter.returncode == 1


@pytest.mark.failure_mode
def test_a_broken_canaries_file_is_named_by_its_line(tmp_path):
    path = tmp_path / "canaries.jsonl"
    path.write_bytes(
        b'\xef\xbb\xbf{"instrument": "steady", "id": "q", "reply": "7"}\n{"id": "q"}\n'
    )
    with pytest.raises(CourseInputError, match=r"canaries.jsonl:2: expected an object with "):
        recorded("steady", path)  # the first line, saved with a BOM, was read


def test_the_lesson_counts_the_questions_the_code_asks():
    lesson = " ".join((Path(__file__).resolve().parents[1] / "README.md").read_text().split())
    asked = [method for _, method, _ in questions()]
    words = {4: "four", 8: "eight", 12: "twelve"}
    assert f"asks {words[len(asked)]} fixed questions" in lesson
    assert f"only when the judge answered all {words[len(asked)]}" in lesson
    assert (
        f"{words[asked.count('score')]} scorings, {words[asked.count('compare')]} comparisons"
        in lesson
    )


def test_a_provider_update_is_found_though_the_journal_holds_the_old_replies(
    cli, tmp_path, monkeypatch
):
    from fakes.chat_server import ChatServer, answering_as
    from stages.s12_real_judge.client import OpenAIJudge
    from stages.s12_real_judge.settings import Settings

    serving = [VersionedJudge()]  # what the provider serves today, as model shop-judge

    class Provider:
        def score(self, *texts):
            return serving[0].score(*texts)

        def compare(self, *texts):
            return serving[0].compare(*texts)

    journal = tmp_path / "journal.sqlite"
    config = tmp_path / "judge.toml"
    config.write_text(f'journal = "{journal}"\n', encoding="utf-8")
    with ChatServer(default=answering_as(Provider())) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        before = OpenAIJudge("shop-judge", Settings(journal=str(journal)))
        assert replies(before) == recorded("shop-judge")  # the journal now holds these replies
        serving[0] = updated_judge()  # the provider's update, under the same name
        result = cli("stages.s16_history", "canary", "--judge", "openai:shop-judge",
                     "--judge-config", str(config))  # fmt: skip
    assert result.returncode == 1, result.stdout
    assert "changed since it was recorded: 8 of 12 replies differ" in result.stdout


@pytest.mark.failure_mode
def test_an_endpoint_that_is_down_is_not_evaluated_and_says_why(cli, monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens on port 9
    result = cli("stages.s16_history", "canary", "--judge", "openai:shop-judge")
    assert result.returncode == 1 and "NOT EVALUATED — too little usable data: 0 usable of 12" in (
        result.stdout
    )
    assert (
        "error: the judge openai:shop-judge is unavailable after 3 failed calls in a row "
        "(Unreachable: cannot connect to http://127.0.0.1:9/v1: " in result.stderr
    )
    assert result.stderr.rstrip().endswith("; the rest were not asked")
    # the canary's own judge, asked as the command asks it: a refused connection is not tried
    # again, and the breaker opens on the third, so 3 requests are made and 9 questions unasked
    with ExitStack() as stack:
        judge = asked_anew("openai:shop-judge", None, None, stack).judge
        assert isinstance(judge, OpenAIJudge) and replies(judge) == {}
    assert judge.describe().requests == 3


@pytest.mark.failure_mode
def test_a_recording_the_judge_did_not_finish_is_refused_and_the_old_one_kept(
    cli, monkeypatch, tmp_path
):
    kept = tmp_path / "canaries.jsonl"
    kept.write_bytes(CANARIES.read_bytes())
    monkeypatch.setattr("stages.s16_history.canary.CANARIES", kept)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens on port 9
    result = cli("stages.s16_history", "canary", "--judge", "openai:shop-judge", "--record")
    assert result.returncode == 1, result.stdout
    assert "error: canary --record: shop-judge answered 0 of 12 questions" in result.stderr
    assert "; the judge is unavailable" in result.stderr and "recorded in" not in result.stdout
    assert kept.read_bytes() == CANARIES.read_bytes() and recorded("shop-judge", kept)


def test_only_a_judge_that_answered_every_question_may_be_recorded():
    answered = replies(SteadyJudge())
    assert unfinished("steady", answered) is None
    last = [qid for qid, _, _ in questions()][-1]
    del answered[last]
    assert f"steady answered 11 of 12 questions (not {last!r}); nothing recorded" in str(
        unfinished("steady", answered)
    )
