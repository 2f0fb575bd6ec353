"""Test configuration shared by every stage's checks.

Hypothesis profiles: `ci` (the default) is derandomized and keeps no example database, so a
run gives the same examples on every machine. Choose another with HYPOTHESIS_PROFILE.
"""

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None)
# >>> stage 8
# `mutation` trades examples for speed: the mutation runner runs a check many times.
settings.register_profile(
    "mutation", derandomize=True, database=None, deadline=None, max_examples=20
)
# <<<
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parent


@pytest.fixture
def cli() -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run `python -m MODULE ARGS...` from the repository root, as a student would."""

    def run(module: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", module, *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )

    return run


def _one_line_error(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.fixture
def one_line_error() -> Callable[..., None]:
    """Bad input from the command line: exit 2, one `error:` line naming the value, no traceback."""
    return _one_line_error
