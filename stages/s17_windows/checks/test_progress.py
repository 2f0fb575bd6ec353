"""Progress on a long run: lines on stderr once the run has taken EVERY_S seconds, at most
that often, never on stdout; a run that ends quickly says nothing."""

import io
import json

from stages.s17_windows.progress import EVERY_S, Progress


class Clock:
    """A clock that moves only when told: `step` seconds each time it is read."""

    def __init__(self, step):
        self.now, self.step = 0.0, step

    def __call__(self):
        self.now += self.step
        return self.now


def test_a_run_that_ends_quickly_says_nothing():
    stream = io.StringIO()
    progress = Progress(stream, Clock(step=0.01))  # 50 files in half a second
    assert list(progress.each(range(50), "file", "read")) == list(range(50))
    assert stream.getvalue() == ""


def test_a_long_run_shows_how_far_it_has_got_at_most_every_few_seconds():
    stream = io.StringIO()
    step = EVERY_S / 2  # the clock is read once at the start, then once after each file
    progress = Progress(stream, Clock(step))
    assert list(progress.each(["a", "b", "c", "d", "e"], "file", "read")) == list("abcde")
    # it reads 1 step at the start, then 2, 3, 4, 5 and 6 after files 1 to 5; a line is due
    # once two steps (EVERY_S) have passed since the start or the last line: after files 2, 4
    assert stream.getvalue() == "windows: file 2/5 read\nwindows: file 4/5 read\n"


def test_progress_goes_to_stderr_never_to_stdout(capsys):
    progress = Progress(clock=Clock(step=EVERY_S))
    assert list(progress.each([(1, 2)], "pair", "tested")) == [(1, 2)]
    out, err = capsys.readouterr()
    assert (out, err) == ("", "windows: pair 1/1 tested\n")


def test_the_command_on_a_quick_run_prints_its_json_and_nothing_else(cli, tmp_path):
    paths = []
    for week in range(3):
        path = tmp_path / f"week{week}.csv"
        path.write_text("score\n" + "".join(f"{n % 7 + week}\n" for n in range(40)), "utf-8")
        paths.append(str(path))
    result = cli("stages.s17_windows", *paths, "--json")
    assert result.returncode == 1 and result.stderr == ""  # three windows: no rise measured
    assert list(json.loads(result.stdout)) == ["your windows"]
