"""The commands on the wire: stage 8's and stage 9's reports, a guard on every call."""

import json
import os
import subprocess
import sys

import pytest

from fakes.chat_server import ChatServer, answering_as
from fakes.judges import BiasedJudge, HangingJudge
from stages.s08_eval.cases import load_cases, run_case
from stages.s08_eval.report import evaluation
from stages.s08_eval.specs import SPECS as EVAL_SPECS
from stages.s08_eval.specs import resolve
from stages.s12_real_judge.judges import SPECS


@pytest.mark.failure_mode
def test_a_judge_that_hangs_is_stopped_after_three_time_outs(cli, tmp_path):
    out = tmp_path / "r.json"
    args = ["--judge", "fakes.judges:HangingJudge", "--judge-timeout", "0.05", "--out", str(out)]
    before = HangingJudge.calls
    result = cli("stages.s12_real_judge", "eval", *args)
    # three calls waited 0.05 s each and opened the breaker; every later question was refused
    # without reaching the judge, so none of them waited at all
    assert HangingJudge.calls - before == 3
    assert result.returncode == 1
    down = (
        "judge unavailable after 3 failed calls in a row (TimeoutError: no answer within 0.05 s); "
        "judge fakes.judges:HangingJudge, at most 0.05 s a call (--judge-timeout); "
        "the rest were not asked"
    )
    assert result.stdout.splitlines()[1] == f"RUN IS NOT SUCCESSFUL: {down}"
    report = json.loads(out.read_text())
    assert report["judge"]["unavailable"] == down.removeprefix("judge ")
    assert report["levels"]["end_to_end"]["unscored"] == report["cases"]["total"]
    assert report["position_bias"]["judge"]["state"] == "not_evaluated"


@pytest.mark.failure_mode
def test_a_judge_that_hangs_stops_report_and_gate_after_three_time_outs(cli, tmp_path):
    hangs = ["--judge", "fakes.judges:HangingJudge", "--judge-timeout", "0.05"]
    for command in (["calibrate", *hangs, "--out", str(tmp_path / "r.json")], ["gate", *hangs]):
        before = HangingJudge.calls
        result = cli("stages.s12_real_judge", *command)
        # three calls waited; the hundreds of questions after them never reached the judge
        assert HangingJudge.calls - before == 3, command[0]
        assert result.returncode == 1
        assert "judge unavailable after 3 failed calls in a row (TimeoutError" in (
            result.stdout.replace("the judge is unavailable", "judge unavailable")
        )


@pytest.mark.failure_mode
def test_a_time_limit_of_zero_is_refused_by_the_command_it_was_given_to(cli):
    result = cli("stages.s12_real_judge", "calibrate", "--judge-timeout", "0")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("usage: python -m stages.s12_real_judge calibrate ")
    assert result.stderr.endswith(
        "error: argument --judge-timeout: '0': a time limit must be above 0 and finite\n"
    )


@pytest.mark.failure_mode
def test_an_unknown_command_is_named_with_the_three_there_are(cli):
    result = cli("stages.s12_real_judge", "evaluate")
    assert result.returncode == 2 and result.stdout == ""
    assert "argument command: invalid choice: 'evaluate' (choose from" in result.stderr
    assert all(f"'{name}'" in result.stderr for name in ("eval", "calibrate", "gate"))


def help_of(*command):
    done = subprocess.run(
        [sys.executable, "-m", *command, "--help"], capture_output=True, text=True, timeout=60
    )
    return " ".join(done.stdout.split())


def test_each_command_s_judge_help_lists_exactly_what_it_accepts():
    assert EVAL_SPECS == "biased (default), steady, module.path:attribute"
    assert f"{EVAL_SPECS}, openai:MODEL" == SPECS
    assert f"--judge JUDGE {EVAL_SPECS} --control" in help_of("stages.s08_eval")
    assert f"--judge JUDGE {EVAL_SPECS} --json" in help_of("stages.s09_calibration", "report")
    assert f"--judge JUDGE {SPECS} --control" in help_of("stages.s12_real_judge", "eval")
    assert f"--judge JUDGE {SPECS} --config" in help_of("stages.s12_real_judge", "gate")


@pytest.mark.failure_mode
def test_the_biased_fake_on_the_wire_gives_stage_8_s_report(tmp_path):
    config = tmp_path / "judge.toml"
    config.write_text(f'journal = "{tmp_path / "journal.sqlite"}"\n')
    with ChatServer(default=answering_as(BiasedJudge())) as server:
        env = {**os.environ, "OPENAI_BASE_URL": server.url}
        command = ["eval", "--judge", "openai:biased", "--judge-config", str(config), "--json"]
        done = subprocess.run(
            [sys.executable, "-m", "stages.s12_real_judge", *command, "--out", str(tmp_path / "r")],
            capture_output=True, text=True, env=env, timeout=120,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    wire = json.loads(done.stdout)
    runs = [run_case(case) for case in load_cases()]
    here = evaluation(runs, resolve("biased"), resolve("steady")).to_json()  # stage 8, here
    for key in ("cases", "levels", "position_bias", "length_bias", "results"):
        assert wire[key] == json.loads(json.dumps(here[key])), key
    # what only a judge on the wire changes: its count of questions, and the two checks that
    # a real instrument cannot pass by construction
    assert wire["judge"]["instrument"]["paid_calls"] == len(server.requests)
    assert (wire["flakiness"]["state"], wire["sampling"]["state"]) == ("not_evaluated",) * 2
