"""Test configuration shared by every stage's checks.

Hypothesis profiles: `ci` (the default) is derandomized and keeps no example database, so a
run gives the same examples on every machine. Choose another with HYPOTHESIS_PROFILE.
"""

import contextlib
import io
import os
import runpy
import subprocess
import sys
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import Phase, settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None)
# `mutation` trades examples for speed: the exercise runners run a check many times.
settings.register_profile(
    "mutation",
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=20,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parent


@pytest.fixture
def cli() -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run `python -m MODULE ARGS...` from the repository root, as a student would, and return
    what a child process would: its exit status, stdout and stderr.

    It runs in this process, which has every library imported already: the same `__main__`
    code under the same `sys.argv`, at a fraction of the cost of starting Python again. A
    traceback is printed to its stderr with status 1, as Python does. `make report`'s check
    runs every stage's command as a child process of its own.
    """

    def run(module: str, *args: str) -> subprocess.CompletedProcess[str]:
        out, err = io.StringIO(), io.StringIO()
        argv, cwd, code = sys.argv, os.getcwd(), 0
        sys.argv = [module, *args]  # argv[0] becomes the module's file, as with `python -m`
        os.chdir(ROOT)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    with warnings.catch_warnings():
                        # a check may have imported the module already; it is run afresh
                        warnings.filterwarnings("ignore", ".* found in sys.modules", RuntimeWarning)
                        runpy.run_module(module, run_name="__main__", alter_sys=True)
                except SystemExit as stop:
                    code = exit_status(stop.code)
                except Exception:
                    traceback.print_exc()
                    code = 1
        finally:
            sys.argv = argv
            os.chdir(cwd)
        return subprocess.CompletedProcess(
            [sys.executable, "-m", module, *args], code, out.getvalue(), err.getvalue()
        )

    return run


def exit_status(code: object) -> int:
    """The status Python exits with for `sys.exit(code)`: a message is printed, and is 1."""
    if code is None or isinstance(code, int):
        return code or 0
    print(code, file=sys.stderr)
    return 1


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
