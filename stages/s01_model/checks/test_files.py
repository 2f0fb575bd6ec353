"""Stage 1's writing: a file replaced whole or left as it was, a line appended whole or taken
back, JSON that strict readers accept, and a folder tested by writing in it."""

import argparse
import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from stages.s01_model.cli import run_cli, whole
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import (
    dumps,
    folder,
    load_json,
    parse_jsonl,
    writable,
    write_through,
)

ROOT = Path(__file__).resolve().parents[3]
LIMIT = 8_000  # bytes a file may grow to in the child below, as a disk that fills does


def with_a_full_disk(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run `code` in a child whose files may not grow past LIMIT bytes (RLIMIT_FSIZE; Python
    ignores SIGXFSZ, so a write past it fails with EFBIG, as one on a full disk fails)."""
    script = textwrap.dedent(f"""
        import resource, sys
        from pathlib import Path
        from stages.s01_model.errors import CourseInputError
        from stages.s01_model.files import append_line, write_text
        resource.setrlimit(resource.RLIMIT_FSIZE, ({LIMIT}, {LIMIT}))
        try:
            {code}
        except CourseInputError as error:
            print(error, file=sys.stderr)
            sys.exit(2)
    """)
    return subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60,
    )  # fmt: skip


@pytest.mark.failure_mode
def test_a_write_that_fails_half_way_leaves_the_older_file_whole(tmp_path):
    older = "older report\n" * 2_000  # 26,000 bytes: over the limit, written before it was set
    (tmp_path / "report.json").write_text(older)
    done = with_a_full_disk('write_text(Path("report.json"), "new report\\n" * 2_000)', tmp_path)
    assert done.returncode == 2, done.stderr
    assert "report.json: cannot write (File too large); the file is as it was" in done.stderr
    assert (tmp_path / "report.json").read_text() == older
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]  # no temporary left


@pytest.mark.failure_mode
def test_an_append_that_fails_half_way_is_taken_back(tmp_path):
    lines = '{"run": 1}\n' * 700  # 7,700 bytes: the next 1,000 cross the limit half-way
    (tmp_path / "history.jsonl").write_text(lines)
    done = with_a_full_disk('append_line(Path("history.jsonl"), "x" * 999 + "\\n")', tmp_path)
    assert done.returncode == 2, done.stderr
    assert "history.jsonl: cannot write (File too large)" in done.stderr
    assert (tmp_path / "history.jsonl").read_text() == lines  # not 300 bytes of the new line


def test_a_file_replaced_keeps_its_permissions(tmp_path):
    done = with_a_full_disk('write_text(Path("shared.txt"), "new")', tmp_path)
    assert done.returncode == 0, done.stderr
    (tmp_path / "shared.txt").chmod(0o640)
    with_a_full_disk('write_text(Path("shared.txt"), "newer")', tmp_path)
    assert (tmp_path / "shared.txt").stat().st_mode & 0o777 == 0o640
    assert (tmp_path / "shared.txt").read_text() == "newer"


@pytest.mark.failure_mode
def test_a_figure_that_is_not_finite_is_refused_naming_where_it_sits():
    for bad, shown in ((math.nan, "nan"), (math.inf, "inf"), (-math.inf, "-inf")):
        report = {"drift": {"bins": [0.0, bad]}, "n": 3}
        with pytest.raises(CourseInputError) as refused:
            dumps(report, sort_keys=True)
        assert f"drift.bins[1] ({shown}) is not a finite number" in str(refused.value)
    # what it writes instead of refusing, any strict reader takes back as it was
    fine = {"a": [1, 2.5, None, "x"], "b": {"c": -0.0}}
    assert json.loads(dumps(fine), parse_constant=lambda name: pytest.fail(name)) == fine


@pytest.mark.failure_mode
def test_json_nested_past_python_s_stack_is_named_not_a_traceback(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)  # valid JSON, deeper than the parser goes
    with pytest.raises(CourseInputError, match=r"deep.json: not usable JSON \(nested too deeply"):
        load_json(deep)
    with pytest.raises(CourseInputError, match=r"lines.jsonl:2: not usable JSON \(nested"):
        parse_jsonl('{"a": 1}\n' + "[" * 100_000 + "]" * 100_000, "lines.jsonl")


@pytest.mark.failure_mode
def test_a_carriage_return_inside_a_record_does_not_split_it():
    # JSON allows \r as white space between tokens; a reader that splits lines at \r (as
    # str.splitlines does) turns this one record into two lines that are not JSON
    assert parse_jsonl('{"a": 1,\r "b": 2}\n{"c": 3}\n', "here") == [{"a": 1, "b": 2}, {"c": 3}]


def a_folder_the_system_refuses(tmp_path: Path) -> Path:
    """/proc refuses every new file, root's too, where os.access says yes; elsewhere, without
    root, a folder with its write permission taken away does."""
    if Path("/proc/self").exists():
        return Path("/proc")
    if os.geteuid() == 0:
        pytest.skip("no folder that refuses root here")
    tmp_path.chmod(0o500)
    return tmp_path


@pytest.mark.failure_mode
def test_a_folder_that_refuses_files_is_named_before_any_work(tmp_path):
    refusing = a_folder_the_system_refuses(tmp_path)
    with pytest.raises(CourseInputError, match=f"--out {refusing}/r.json: cannot write in"):
        writable(refusing / "r.json", "--out")
    with pytest.raises(CourseInputError, match=f"--plots {refusing}/plots: cannot write in"):
        folder(refusing / "plots", "--plots")


@pytest.mark.failure_mode
def test_sigterm_ends_a_command_in_one_line_and_143(capsys):
    def main() -> int:
        os.kill(os.getpid(), signal.SIGTERM)  # as `kill` or a CI job's time limit sends it
        time.sleep(30)  # the handler raises here, long before this ends
        return 0

    before = signal.getsignal(signal.SIGTERM)
    assert run_cli(main) == 143
    assert capsys.readouterr().err == "error: terminated\n"
    assert signal.getsignal(signal.SIGTERM) == before  # put back once the command ends


@pytest.mark.failure_mode
def test_a_plot_written_through_a_full_disk_leaves_the_older_one_whole(tmp_path):
    # write_through is what a plot is written with: the drawing fails half-way, as savefig does
    # when the disk fills, after some bytes are out
    plot = tmp_path / "plot.png"
    plot.write_bytes(b"the older plot")

    def half(out):
        out.write(b"half a new plot")
        raise OSError(28, "No space left on device")

    with pytest.raises(CourseInputError) as raised:
        write_through(plot, half)
    assert str(raised.value) == (
        f"{plot}: cannot write (No space left on device); the file is as it was"
    )
    assert plot.read_bytes() == b"the older plot" and os.listdir(tmp_path) == ["plot.png"]


@pytest.mark.failure_mode
def test_a_write_stopped_by_ctrl_c_leaves_the_older_file_and_no_temporary(tmp_path):
    report = tmp_path / "report.json"
    report.write_text("older")

    def stopped(out):
        out.write(b"half")
        raise KeyboardInterrupt  # as Ctrl-C, or SIGTERM's Terminated, lands mid-write

    with pytest.raises(KeyboardInterrupt):  # passed on as it came, for run_cli to report
        write_through(report, stopped)
    assert report.read_text() == "older" and os.listdir(tmp_path) == ["report.json"]


def test_a_count_below_its_least_is_refused_with_what_it_means():
    count = whole(1, "each text must be scored at least once")
    assert count("3") == 3
    for text, why in (("0", "0: each text must be scored at least once"),
                      ("two", "'two' is not a whole number")):  # fmt: skip
        with pytest.raises(argparse.ArgumentTypeError, match=why):
            count(text)
