"""The exercise runners' pytest runs, forked from a process with the libraries imported: each
run imports its own tree's code afresh, takes its own environment, and is stopped whole; and
the copies of the tree they run in."""

import os
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path

import pytest

from scripts.copies import Limit, Runner

PROBE = """
import gc, os, subprocess, time

import probe


def test_probe():
    assert probe.__file__ == os.path.join(os.getcwd(), "probe.py")
    assert probe.VALUE == os.environ["PROBE"]  # this tree's code, under this run's environment
    assert os.getsid(0) == os.getpid()  # a session of its own: killpg stops it whole


def test_frozen():
    # what makes a forked run quick: the server's libraries were frozen before the fork, so
    # pytest's closing garbage collections do not walk them (well over 10,000 objects)
    assert gc.get_freeze_count() > 10_000


def test_hangs():
    if os.environ.get("HANG"):
        child = subprocess.Popen(["sleep", "300"])
        (open(os.environ["HANG"], "w")).write(str(child.pid))
        time.sleep(300)
"""


def tree(scratch: Path, value: str) -> Path:
    """A tree of one module whose VALUE is `value`, and checks that read it."""
    folder = scratch / f"run-{value}" / "tree"
    folder.mkdir(parents=True)
    (folder / "probe.py").write_text(f"VALUE = {value!r}\n")
    (folder / "test_probe.py").write_text(PROBE)
    return folder


def probed(runner: Runner, folder: Path, value: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PROBE", value)
    return runner.pytest(folder, ["test_probe.py::test_probe"]).results


def test_each_forked_run_imports_its_own_tree_under_its_own_environment(tmp_path, monkeypatch):
    with Runner(tmp_path, forks=True) as runner:
        for value in ("first", "second"):  # the same module name, two trees, one server
            assert probed(runner, tree(tmp_path, value), value, monkeypatch) == {
                "test_probe.py::test_probe": "passed"
            }
        frozen = runner.pytest(tree(tmp_path, "frozen"), ["test_probe.py::test_frozen"]).results
        assert frozen == {"test_probe.py::test_frozen": "passed"}
        server = runner.server.process
        assert server is not None and server.poll() is None  # both were forked, not started
    assert server.returncode == 0  # and the server ends with the runner


@pytest.mark.failure_mode
def test_a_forked_run_past_its_limit_is_stopped_with_its_children(tmp_path, monkeypatch):
    pid_file = tmp_path / "sleeper.pid"
    monkeypatch.setenv("HANG", str(pid_file))
    limit = Limit(at_least=1.0)
    limit.measured(0.0)
    with Runner(tmp_path, forks=True) as runner:
        run = runner.pytest(tree(tmp_path, "hangs"), ["test_probe.py::test_hangs"], limit)
        assert runner.server.process is not None and runner.server.process.poll() is None
    assert run.code is None and run.limit == 1.0
    sleeper = int(pid_file.read_text())
    for _ in range(50):
        if not running(sleeper):
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"the check's child {sleeper} outlived the limit")


def running(pid: int) -> bool:
    """Whether `pid` still runs. A killed process whose parent is gone waits for init to reap
    it, which may take a second: such a zombie runs no more."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with suppress(OSError):  # no /proc here: what kill said
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return True


def test_where_the_server_cannot_listen_python_is_started_as_before(tmp_path, monkeypatch):
    deep = tmp_path / ("x" * 100)  # a socket path longer than a Unix socket's address allows
    deep.mkdir()
    with Runner(deep, forks=True) as runner:
        assert probed(runner, tree(deep, "plain"), "plain", monkeypatch) == {
            "test_probe.py::test_probe": "passed"
        }
        assert runner.server.process is not None and runner.server.process.poll() is not None


def test_a_copy_links_the_bytecode_and_a_run_there_leaves_the_tree_s_alone(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (root / "probe.py").write_text("VALUE = 1\n")

    def imported(folder: Path) -> Path:
        subprocess.run([sys.executable, "-c", "import probe"], cwd=folder, check=True, env={})
        (compiled,) = (folder / "__pycache__").iterdir()
        return compiled

    original = imported(root)
    before = original.read_bytes()
    (tmp_path / "scratch").mkdir()
    copy = Runner(tmp_path / "scratch", root=root).copy("x")
    (mine,) = (copy / "__pycache__").iterdir()
    assert mine.samefile(original)  # linked, not copied: what makes a copy quick
    assert not (copy / "probe.py").samefile(root / "probe.py")  # a source is copied
    (copy / "probe.py").write_text("VALUE = 2  # a planted bug\n")
    assert imported(copy) == mine and not mine.samefile(original)  # compiled anew, replaced
    assert original.read_bytes() == before  # the tree's own is as it was
