"""Exercise a-start-interrupted-leaves-the-server-running (write the check): the local judge's
server is stopped however the command ends, and that includes a command stopped before the
server has answered once: a SIGTERM while the model loads stops the server it started.

`make exercise ID=a-start-interrupted-leaves-the-server-running` shows the planted bug. Replace
the `pytest.skip(...)` line below with a check that passes on the code as it is and fails with
the bug planted; then run `make exercise ID=a-start-interrupted-leaves-the-server-running`
again to prove it.
"""

import pytest

# >>> main
from stages.s01_model.cli import ROOT

# The server: it says it has started, then loads and loads, and never answers. Left alone it
# ends by itself after 30 s, a safety net for the run that finds the bug.
LOADING = """
import os, pathlib, sys, time
pathlib.Path(sys.argv[1]).write_text(str(os.getpid()))
time.sleep(30)
"""
# The command: it starts that server and waits for it, as --judge local does.
COMMAND = """
import pathlib, sys
from stages.s13_local_model.local import LocalServer
server = LocalServer(
    lambda port: [sys.executable, "-c", {loading!r}, {pid_file!r}], pathlib.Path({log!r})
)
server.__enter__()  # waits for an answer that never comes: only a signal ends it
"""


# <<<


def test_a_start_interrupted_leaves_the_server_running(tmp_path):
    # >>> main
    import os
    import signal
    import subprocess
    import sys
    import time

    def alive(pid):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True

    pid_file = tmp_path / "server.pid"
    code = COMMAND.format(loading=LOADING, pid_file=str(pid_file), log=str(tmp_path / "log"))
    command = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.1)
    server = int(pid_file.read_text())
    # a job's time limit, or a person's `kill`: the command is stopped while the model loads
    command.send_signal(signal.SIGTERM)
    try:
        assert command.wait(20) == 128 + signal.SIGTERM
        assert not alive(server)  # stopped, and waited for, by the command that started it
    finally:
        if alive(server):
            os.kill(server, signal.SIGKILL)  # what the bug left behind: not left to this run
    return
    # <<<
    pytest.skip(
        "exercise a-start-interrupted-leaves-the-server-running: write this check, then run "
        "`make exercise ID=a-start-interrupted-leaves-the-server-running`"
    )
