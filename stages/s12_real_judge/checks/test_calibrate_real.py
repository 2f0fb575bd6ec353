"""Stage 9's report and gate with a real judge, over a loopback chat-completions server."""

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from fakes.chat_server import ChatServer

ROOT = Path(__file__).resolve().parents[3]
KEY = "sk-test-S9-DISTINCTIVE-42"
SAFETY_NET_S = 120  # far more than a run against a dead endpoint needs; never the check


def test_report_and_gate_run_against_an_openai_compatible_server(tmp_path):
    config = tmp_path / "judge.toml"
    config.write_text(f'journal = "{tmp_path / "cache.sqlite"}"\n')
    with ChatServer() as server:  # replies 7 to every scoring question, tie to comparisons
        env = {**os.environ, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.url}
        common = ["--judge", "openai:some-model", "--judge-config", str(config)]
        command = [sys.executable, "-m", "stages.s12_real_judge"]
        report = subprocess.run(
            [*command, "calibrate", *common, "--json", "--out", str(tmp_path / "r.json")],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert report.returncode == 0, report.stderr
        paid = len(server.requests)
        gate = subprocess.run(
            [*command, "gate", *common], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert len(server.requests) == paid  # the gate asks what the report asked: all cached
    result = json.loads(report.stdout)
    instrument = result["judge"]["instrument"]
    assert instrument["endpoint"] == server.url
    # every request the server saw, the rubric change's included, and each one answered
    assert instrument["requests"] == instrument["paid_calls"] == paid
    assert result["judge"]["calls_in_all"] == paid == 2 * result["judge"]["calls"]
    # a judge that gives everything 7 passes every answer: kappa is 0, the gate fails it
    assert result["calibration"]["kappa"] == 0.0
    assert gate.returncode == 1 and "kappa against people: 0.00" in gate.stdout
    everything = report.stdout + report.stderr + gate.stdout + gate.stderr
    assert KEY not in everything + (tmp_path / "cache.sqlite").read_bytes().decode("latin-1")


@pytest.mark.failure_mode
def test_report_and_gate_against_a_dead_endpoint_stop_after_three_refusals_with_one_line(
    tmp_path,
):
    with socket.socket() as probe:  # a loopback port where nothing listens
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    env = {**os.environ, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": url}
    config = tmp_path / "judge.toml"
    config.write_text(f'journal = "{tmp_path / "cache.sqlite"}"\n')
    common = ["--judge", "openai:m", "--judge-config", str(config)]
    # A refused connection is not tried again, and three in a row open the breaker: three
    # requests, and at most the 8 - 1 others in flight at that moment (concurrency 8 by
    # default), 3 to 10 in all. Every other question is refused without a request.
    asked = range(3, 10 + 1)
    for command in (["calibrate", *common, "--json", "--out", str(tmp_path / "r.json")],
                    ["gate", *common]):  # fmt: skip
        try:
            result = subprocess.run(
                [sys.executable, "-m", "stages.s12_real_judge", *command],
                cwd=ROOT, env=env, capture_output=True, text=True, timeout=SAFETY_NET_S,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            pytest.fail(f"safety net: {command[0]} still ran after {SAFETY_NET_S} s, stopped")
        assert result.returncode == 1
        assert KEY not in result.stdout + result.stderr
        if command[0] == "calibrate":
            errors = [line for line in result.stderr.splitlines() if line.startswith("error")]
            assert len(errors) == 1 and url in errors[0] and "(OPENAI_BASE_URL)" in errors[0]
            report = json.loads(result.stdout)
            assert report["judge"]["unavailable"].startswith(
                "unavailable after 3 failed calls in a row (Unreachable: cannot connect"
            )
            assert report["judge"]["instrument"]["requests"] in asked
            assert report["judge"]["instrument"]["paid_calls"] == 0
            assert report["verbosity"]["state"] == "not_evaluated"
        else:
            assert "the judge is unavailable after 3 failed calls in a row (Unreachable" in (
                result.stdout
            )
            # every call unscored: those sent were refused by the endpoint (Unreachable), the
            # others by the open breaker, without a request (InstrumentDown)
            assert re.search(r"\b(\d+) calls, \1 unscored \(", result.stdout), result.stdout
            refused = re.search(r"\b(\d+) judge unavailable: Unreachable\b", result.stdout)
            assert refused is not None and int(refused[1]) in asked, result.stdout
