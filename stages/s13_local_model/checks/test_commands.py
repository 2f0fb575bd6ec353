"""The commands with the local judges: what --judge takes, and the demo that replays."""

import subprocess
import sys

from stages.s12_real_judge import judges
from stages.s13_local_model.judges import SPECS


def help_of(*command):
    done = subprocess.run(
        [sys.executable, "-m", *command, "--help"], capture_output=True, text=True, timeout=60
    )
    return " ".join(done.stdout.split())


def test_each_command_s_judge_help_lists_the_local_judges_too():
    assert f"{judges.SPECS}, local[:MODEL], replay[:MODEL]" == SPECS
    assert f"--judge JUDGE {SPECS} --control" in help_of("stages.s13_local_model", "eval")
    assert f"--judge JUDGE {SPECS} --config" in help_of("stages.s13_local_model", "gate")
    assert "--record" in help_of("stages.s13_local_model", "calibrate")
    assert "--record" not in help_of("stages.s12_real_judge", "calibrate")


def test_without_a_command_the_local_model_s_calibration_is_replayed(cli):
    result = cli("stages.s13_local_model")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Stage 11 — calibration report, corrected")
    assert "judge: replay (480 calls, 0 unscored)" in result.stdout  # nothing asked anew
