"""The report command: its plots, and a report without data failing with the reason."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from fakes.judges import HangingJudge, SteadyJudge
from stages.s08_eval import specs
from stages.s08_eval.checks.test_specs import within
from stages.s08_eval.judge import CountingJudge
from stages.s08_eval.specs import PLUG_IN, resolve
from stages.s09_calibration.calibrate import Asking, calibrate
from stages.s09_calibration.checks.test_calibrate import CASES, MEASURES, TWINS
from stages.s09_calibration.report import Report, Side

STAGE = Path(__file__).resolve().parents[1]


def test_plots_are_written_as_png_files(cli, tmp_path):
    result = cli("stages.s09_calibration", "report", "--plots", str(tmp_path / "plots"),
                 "--out", str(tmp_path / "r.json"))  # fmt: skip
    assert result.returncode == 0, result.stderr
    for name in ("score_vs_length.png", "bootstrap.png"):
        assert (tmp_path / "plots" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(path.name for path in (tmp_path / "plots").iterdir()) == [
        "bootstrap.png", "score_vs_length.png"
    ]  # fmt: skip


@pytest.mark.failure_mode
@pytest.mark.parametrize("judge", ["ProseJudge", "SilentJudge", "RateLimitedJudge"])
def test_a_report_over_no_usable_reply_says_so_at_the_top_and_exits_1(cli, tmp_path, judge):
    out = tmp_path / "r.json"
    result = cli("stages.s09_calibration", "report", "--judge", f"fakes.judges:{judge}",
                 "--out", str(out))  # fmt: skip
    assert result.returncode == 1
    # every text scored 3 times (48 answers, 96 twins) and 24 pairs in both orders: 480
    assert result.stdout.splitlines()[1] == (
        "RUN IS NOT SUCCESSFUL: nothing was evaluated for the judge: 480 of 480 replies unscored"
    )
    assert result.stdout.count("NOT EVALUATED — too little usable data: 0 usable of") == 4
    report = json.loads(out.read_text())
    for name in MEASURES:
        assert (report[name]["state"], report[name]["usable"]) == ("not_evaluated", 0)
        assert report["control"][name]["state"] != "not_evaluated"  # the control still works
    assert report["unscored"]["count"] == 480


@pytest.mark.failure_mode
def test_one_measure_without_data_is_enough_to_fail_the_report(cli, tmp_path):
    # scores like the steady judge, compares in prose: only pairwise has no usable reply
    judge = "stages.s09_calibration.checks.test_calibrate:ComparesInProse"
    out = tmp_path / "r.json"
    result = cli("stages.s09_calibration", "report", "--judge", judge, "--out", str(out))
    assert result.returncode == 1
    assert result.stdout.splitlines()[1] == (
        "RUN IS NOT SUCCESSFUL: not evaluated for the judge: pairwise"
    )
    report = json.loads(out.read_text())
    assert [name for name in MEASURES if report[name]["state"] == "not_evaluated"] == ["pairwise"]


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--repeats", "0"], "argument --repeats: 0: each text must be scored at least once"),
        (["--repeats", "-1"], "argument --repeats: -1: each text must be scored at least once"),
        (["--repeats", "two"], "argument --repeats: 'two' is not a whole number"),
        (["--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_arguments_that_cannot_make_a_measurement_are_refused(cli, arguments, message):
    result = cli("stages.s09_calibration", "report", *arguments)
    assert result.returncode == 2 and result.stdout == ""
    # the report command's own usage and error, not the top-level one
    assert result.stderr.startswith("usage: python -m stages.s09_calibration report ")
    assert result.stderr.endswith(f"python -m stages.s09_calibration report: error: {message}\n")


@pytest.mark.failure_mode
def test_outputs_that_cannot_be_written_are_refused_before_any_work(cli, one_line_error, tmp_path):
    (tmp_path / "a-file").write_text("")
    out = tmp_path / "a-file" / "r.json"
    one_line_error(cli("stages.s09_calibration", "report", "--out", str(out)),
                   f"--out {out}: {tmp_path / 'a-file'} is a file, not a folder")  # fmt: skip
    plots = tmp_path / "a-file"
    one_line_error(cli("stages.s09_calibration", "report", "--plots", str(plots),
                       "--out", str(tmp_path / "r.json")),
                   f"--plots {plots}: is a file; name a folder to write them in")  # fmt: skip
    below = plots / "pictures"  # a folder that cannot be made: a file is in its way
    refused = f"--plots {below}: {plots} is a file; name a folder to write them in"
    one_line_error(cli("stages.s09_calibration", "report", "--plots", str(below),
                       "--out", str(tmp_path / "r.json")), refused)  # fmt: skip
    assert not (tmp_path / "r.json").exists()  # refused before anything was measured


QUICK = replace(PLUG_IN, timeout_s=0.2)  # a judge that hangs is given up on in 0.6 s


@pytest.mark.failure_mode
def test_a_plug_in_that_hangs_is_asked_three_times_and_nothing_is_evaluated():
    chosen = resolve("fakes.judges:HangingJudge", QUICK)
    before = HangingJudge.calls
    run = within(20, lambda: calibrate(CountingJudge(chosen.judge, chosen.name), CASES, TWINS))
    assert HangingJudge.calls - before == 3  # then the breaker opened: nothing more was asked
    # 480 questions: 144 texts scored 3 times, 24 pairs in both orders. Two time out; the
    # third opens the breaker, which refuses it and the 477 after it unasked: 478
    assert run.unscored.reasons == {
        "judge unavailable: InstrumentDown": 478,
        "judge unavailable: TimeoutError": 2,
    }
    assert run.not_evaluated() == list(MEASURES)
    control = calibrate(CountingJudge(SteadyJudge(), "steady"), CASES, TWINS)
    report = Report(Side(run, Asking(), run.judge.calls), Side(control, Asking(), 0))
    assert report.not_successful == [
        "nothing was evaluated for the judge: 480 of 480 replies unscored"
    ]


@pytest.mark.failure_mode
def test_the_report_with_a_plug_in_that_hangs_ends_not_successful(cli, monkeypatch, tmp_path):
    # the command's own resolve, with only the default time limit shortened
    monkeypatch.setattr(specs, "PLUG_IN", QUICK)
    out, before = tmp_path / "r.json", HangingJudge.calls
    hangs = ["report", "--judge", "fakes.judges:HangingJudge", "--out", str(out)]
    result = within(20, lambda: cli("stages.s09_calibration", *hangs))
    assert (result.returncode, HangingJudge.calls - before) == (1, 3)
    assert result.stdout.splitlines()[1] == (
        "RUN IS NOT SUCCESSFUL: nothing was evaluated for the judge: 480 of 480 replies unscored"
    )
    assert result.stderr.splitlines()[-1] == (
        "error: run is not successful: nothing was evaluated for the judge: 480 of 480 replies "
        "unscored"
    )
    report = json.loads(out.read_text())
    assert [report[name]["state"] for name in MEASURES] == ["not_evaluated"] * 4
