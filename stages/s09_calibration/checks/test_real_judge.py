"""Stage 9 with a real judge: the same report over a loopback chat-completions server."""

import json
import os
import subprocess
import sys
from pathlib import Path

from fakes.chat_server import ChatServer

ROOT = Path(__file__).resolve().parents[3]
KEY = "sk-test-S9-DISTINCTIVE-42"


def test_report_and_gate_run_against_an_openai_compatible_server(tmp_path):
    config = tmp_path / "judge.toml"
    config.write_text(f'cache = "{tmp_path / "cache.sqlite"}"\n')
    with ChatServer() as server:  # replies 7 to every scoring question, tie to comparisons
        env = {**os.environ, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.url}
        common = ["--judge", "openai:some-model", "--judge-config", str(config)]
        command = [sys.executable, "-m", "stages.s09_calibration"]
        report = subprocess.run(
            [*command, "report", *common, "--json", "--out", str(tmp_path / "r.json")],
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
    assert instrument["endpoint"] == server.url.split("/")[2] and instrument["paid_calls"] == paid
    # a judge that gives everything 7 passes every answer: kappa is 0, the gate fails it
    assert result["calibration"]["kappa"] == 0.0
    assert gate.returncode == 1 and "kappa against people: 0.00" in gate.stdout
    everything = report.stdout + report.stderr + gate.stdout + gate.stderr
    assert KEY not in everything + (tmp_path / "cache.sqlite").read_bytes().decode("latin-1")
