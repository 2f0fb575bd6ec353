"""Stage 1: one model call, the scripted fake behind it, and bad input told plainly."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes.scripted_model import (
    HANGING_ORDER,
    UNKNOWN_TOOL,
    OffScriptError,
    ScriptedModel,
    parse_script,
)
from stages.s01_model.cli import ROOT, Parser, run_cli
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import load_json, load_toml, read_jsonl
from stages.s01_model.model import SYSTEM_PROMPT, Answer, Message, ToolCall, ask
from stages.s01_model.trace import JsonlTrace


def test_ask_sends_the_system_prompt_and_the_question_once():
    model = ScriptedModel.from_steps([{"answer": "We are open daily."}])
    reply = ask(model, "Open on Sundays?")
    assert reply == Answer("We are open daily.")
    assert model.calls == [(Message("system", SYSTEM_PROMPT), Message("user", "Open on Sundays?"))]


def test_the_script_is_played_in_order():
    model = ScriptedModel.from_steps(
        [{"call": "order_status", "args": {"order_id": "A1001"}}, {"answer": "Shipped."}]
    )
    conversation = [Message("user", "Where is A1001?")]
    assert model.respond(conversation) == ToolCall("order_status", {"order_id": "A1001"})
    assert model.respond(conversation) == Answer("Shipped.")
    assert model.finished


@pytest.mark.failure_mode
def test_a_model_used_past_its_script_names_the_step_it_expected():
    model = ScriptedModel.from_steps([{"answer": "one"}, {"answer": "two"}])
    model.respond([Message("user", "hi")])
    model.respond([Message("user", "hi")])
    with pytest.raises(OffScriptError, match="expected step 3, but the script has only 2"):
        model.respond([Message("user", "hi")])


@pytest.mark.failure_mode
def test_a_model_asked_a_different_task_refuses_to_play():
    model = ScriptedModel.from_steps([{"answer": "Shipped."}], task="Where is A1001?")
    with pytest.raises(OffScriptError, match="expected step 1 for task 'Where is A1001\\?'"):
        model.respond([Message("user", "Where is A1002?")])


@pytest.mark.parametrize(
    ("step", "reply"),
    [
        ({"fault": "unknown_tool"}, ToolCall(UNKNOWN_TOOL, {})),
        ({"fault": "malformed_args"}, ToolCall("order_status", {"order": 1009})),
        ({"fault": "tool_timeout"}, ToolCall("delivery_estimate", {"order_id": HANGING_ORDER})),
        ({"fault": "empty_reply"}, Answer("")),
    ],
)
def test_each_fault_is_the_documented_reply(step, reply):
    assert ScriptedModel.from_steps([step]).respond([]) == reply


def test_a_model_that_never_answers_repeats_its_last_call_forever():
    call = {"call": "order_status", "args": {"order_id": "A1008"}}
    model = ScriptedModel.from_steps([call, {"fault": "never_answers"}])
    model.respond([])  # the call itself
    replies = [model.respond([]) for _ in range(50)]
    assert replies == [ToolCall("order_status", {"order_id": "A1008"})] * 50


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("script", "fragment"),
    [
        ([], "steps must be a non-empty list"),
        ({"steps": [{"cal": "order_status"}]}, "step 1: needs exactly one of call, answer, fault"),
        ({"steps": [{"answer": "ok"}, {"answer": 3}]}, "step 2: answer must be text, got 3"),
        ({"steps": [{"fault": "explode"}]}, "step 1: fault 'explode' is not one of"),
        ({"steps": [{"call": "x", "args": [1]}]}, "step 1: args must be an object"),
        ({"steps": [{"answer": "a", "call": "x"}]}, "needs exactly one of call, answer, fault"),
        ({"task": 7, "steps": [{"answer": "a"}]}, "task must be text, got 7"),
        ({"steps": [{"answer": "a"}], "tsak": "x"}, "unknown key 'tsak'"),
    ],
)
def test_a_malformed_script_is_rejected_naming_source_and_step(script, fragment):
    with pytest.raises(CourseInputError, match=r"^demo\.json: ") as raised:
        parse_script(script, "demo.json")
    assert fragment in str(raised.value)


@given(st.lists(st.text(min_size=1), min_size=1, max_size=8))
def test_any_list_of_answers_is_replayed_exactly(answers):
    model = ScriptedModel(parse_script({"steps": [{"answer": a} for a in answers]}, "gen"))
    assert [model.respond([]) for _ in answers] == [Answer(a) for a in answers]


def test_a_trace_written_is_the_trace_read_back(tmp_path):
    path = tmp_path / "nested" / "trace.jsonl"
    trace = JsonlTrace(path)
    trace.write({"role": "user", "content": "hi"})
    trace.write({"role": "assistant", "content": "hello"})
    lines = path.read_text().splitlines()
    assert [json.loads(line) for line in lines] == trace.records
    assert read_jsonl(path) == trace.records


@pytest.mark.failure_mode
def test_a_broken_trace_line_is_named_by_file_and_line(tmp_path):
    path = tmp_path / "trace.jsonl"
    path.write_text('{"role": "user"}\n[1, 2]\n')
    with pytest.raises(CourseInputError, match=r"trace.jsonl:2: expected a JSON object"):
        read_jsonl(path)
    path.write_text('{"role": "user"}\n\n{oops\n')
    with pytest.raises(CourseInputError, match=r"trace.jsonl:3: not JSON"):
        read_jsonl(path)


@pytest.mark.failure_mode
def test_bad_json_and_missing_files_are_named_with_their_place(tmp_path):
    path = tmp_path / "script.json"
    path.write_text('{\n  "steps": [,]\n}')
    with pytest.raises(CourseInputError, match=r"script.json:2:\d+: not valid JSON"):
        load_json(path)
    with pytest.raises(CourseInputError, match=r"absent.json: cannot read"):
        load_json(tmp_path / "absent.json")
    manifest = tmp_path / "course.toml"
    manifest.write_text('[course]\npaths = ["a" "b"]\n')
    with pytest.raises(CourseInputError, match=r"course.toml: not valid TOML \(.*line 2"):
        load_toml(manifest)


@pytest.mark.failure_mode
def test_a_file_saved_with_a_byte_order_mark_is_read_and_one_not_in_utf8_is_named(tmp_path):
    settings = tmp_path / "settings.toml"
    settings.write_bytes(b"\xef\xbb\xbftimeout_s = 2\n")  # as some editors save UTF-8
    assert load_toml(settings) == {"timeout_s": 2}
    script = tmp_path / "script.json"
    script.write_bytes(b'\xef\xbb\xbf{"steps": []}')
    assert load_json(script) == {"steps": []}
    lines = tmp_path / "trace.jsonl"
    lines.write_bytes(b'\xef\xbb\xbf{"role": "user"}\n')
    assert read_jsonl(lines) == [{"role": "user"}]
    script.write_bytes(b'{"task": "caf\xe9"}')  # Latin-1, not UTF-8: byte 13 is the e acute
    with pytest.raises(CourseInputError, match=r"script.json: byte 13 is not UTF-8$"):
        load_json(script)


def test_the_demo_answers_and_writes_two_lines_without_a_run_key(cli, tmp_path):
    trace = tmp_path / "s01.jsonl"
    result = cli("stages.s01_model", "--trace", str(trace))
    assert result.returncode == 0, result.stderr
    records = read_jsonl(trace)
    assert [r["role"] for r in records] == ["user", "assistant"]
    assert all(set(r) == {"role", "content"} for r in records)


@pytest.mark.failure_mode
def test_the_demo_turns_a_malformed_script_into_one_line_and_exit_2(cli, one_line_error, tmp_path):
    script = tmp_path / "bad.json"
    script.write_text('{"steps": [{"answer": "fine"}, {"cal": "order_status"}]}')
    one_line_error(cli("stages.s01_model", "--script", str(script)), "bad.json: step 2")
    one_line_error(cli("stages.s01_model", "--script", str(tmp_path / "none.json")), "none.json")


@pytest.mark.failure_mode
def test_bad_input_and_ctrl_c_end_a_command_in_one_line(capsys):
    def refuses():
        raise CourseInputError("--script x.json: no such file")

    def interrupted():
        raise KeyboardInterrupt

    assert run_cli(refuses) == 2
    assert capsys.readouterr().err == "error: --script x.json: no such file\n"
    assert run_cli(interrupted) == 130
    assert capsys.readouterr().err == "error: interrupted\n"


@pytest.mark.failure_mode
def test_a_reader_that_stops_reading_ends_a_command_quietly():
    # `python -m ... | head`: head exits, the next write fails with a broken pipe
    program = (
        "import sys\nfrom stages.s01_model.cli import run_cli\n"
        "def stopped():\n    raise BrokenPipeError\n"
        "sys.exit(run_cli(stopped))\n"
    )
    ended = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert (ended.returncode, ended.stderr) == (141, "")  # 128 + SIGPIPE, and no traceback


@pytest.mark.failure_mode
def test_a_trace_that_cannot_be_written_is_one_line_before_the_demo_runs(tmp_path):
    # a folder, or a file where a folder should be: named on one line, exit 2, nothing asked
    blocking = tmp_path / "a-file"
    blocking.write_text("")
    refused = [(tmp_path, "is a folder, not a file"),
               (blocking / "t.jsonl", f"{blocking} is a file, not a folder")]  # fmt: skip
    for place, problem in refused:
        ended = subprocess.run(
            [sys.executable, "-m", "stages.s01_model", "--trace", str(place)],
            capture_output=True, text=True, timeout=60,  # a safety net, not a measure
        )  # fmt: skip
        assert (ended.returncode, ended.stdout) == (2, "")
        assert ended.stderr == f"error: --trace {place}: {problem}\n"
    written = tmp_path / "new" / "t.jsonl"  # a folder not there yet is made
    ended = subprocess.run([sys.executable, "-m", "stages.s01_model", "--trace", str(written)],
                           capture_output=True, text=True, timeout=60)  # fmt: skip
    assert ended.returncode == 0, ended.stderr
    assert read_jsonl(written)  # the demo's trace, where it was asked for


def test_an_options_help_gives_its_default_once_and_a_path_from_the_course_folder():
    parser = Parser(prog="demo")
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "x.json", help="the report")
    parser.add_argument("--repeats", type=int, default=0, help="how many")  # 0 is a value
    parser.add_argument("--share", default="5%", help="of the calls")  # argparse formats help
    parser.add_argument("--limit", default=30, help="seconds (default 30; or the file's)")
    parser.add_argument("--json", action="store_true", help="one object")  # off unless given
    parser.add_argument("--config", help="a settings file")  # nothing unless given
    gate = parser.add_subparsers().add_parser("gate")  # a sub-command's parser is one too
    gate.add_argument("--reply", default="bare", help="reply form")
    shown = " ".join(parser.format_help().split()) + " "  # as printed, unwrapped
    assert "--out OUT the report (default: reports/x.json)" in shown
    assert "--repeats REPEATS how many (default: 0)" in shown
    assert "--share SHARE of the calls (default: 5%)" in shown
    assert shown.endswith(  # the help that says it already, and the two with nothing to say
        "--limit LIMIT seconds (default 30; or the file's) --json one object --config CONFIG a "
        "settings file "
    )
    assert "-h, --help show this help message and exit --out" in shown  # its default: SUPPRESS
    assert "--reply REPLY reply form (default: bare)" in " ".join(gate.format_help().split())
