"""The local model's recorded replies, replayed with no model and no network: the lesson's
figures for a real instrument are compared with the replay, and a recording that no longer
answers every question says how many it lacks and how to record them."""

import json
import re
from pathlib import Path
from statistics import fmean

import pytest

from stages.s01_model.errors import CourseInputError
from stages.s08_eval.findings import Finding
from stages.s08_eval.length import LengthResult
from stages.s08_eval.position import PositionResult
from stages.s08_eval.render import describe_length, describe_position
from stages.s09_calibration.calibration import load_calibration
from stages.s09_calibration.report import interval, number
from stages.s13_local_model import models, recording
from stages.s13_local_model.recording import load, save

STAGE = Path(__file__).resolve().parents[1]
COMMAND = "stages.s13_local_model"


def test_a_replay_asks_nothing_and_answers_every_question(tmp_path, cli):
    runs = [("eval", "replay"), ("calibrate", "replay"), ("calibrate", "replay:qwen-1.5b")]
    for command, spec in runs:
        result = cli(COMMAND, command, "--judge", spec, "--json", "--out", str(tmp_path / "r"))
        assert result.returncode in (0, 1), result.stderr  # 1: the larger model's flaws, found
        judge = json.loads(result.stdout)["judge"]
        assert judge["unavailable"] is None, judge["unavailable"]  # says how many are missing
        assert judge["instrument"]["requests"] == judge["instrument"]["paid_calls"] == 0
        assert judge["instrument"]["from_cache"] > 0
        recorded = recording.recording(models.named(spec.partition(":")[2]))
        assert judge["instrument"]["kept_in"] == f"the recording fixtures/{recorded.name}"
    padded = cli(COMMAND, "pad", "--judge", "replay", "--out", str(tmp_path / "twins.jsonl"))
    assert padded.returncode == 0, padded.stderr


def position_line(report):
    """The judge's position-bias line as stage 8's renderer prints it, from the report's JSON."""
    p = report["position_bias"]["judge"]
    found = PositionResult(Finding(p["state"]), p["flips"], p["pairs"], p["unscored"], p["reason"])
    return describe_position(found)


def length_line(report):
    """The judge's length-bias tally as stage 8's renderer prints it, from the report's JSON."""
    n = report["length_bias"]["judge"]
    found = LengthResult(Finding(n["state"]), n["found"], n["pairs"], n["unscored"], n["reason"])
    return describe_length(found)[0]


def shift(m):
    figures = f"mean delta {number(m['mean_delta'])} {interval(m['ci'])}"
    return f"{figures}, {m['flips']} of {m['n']} flip — {m['verdict']}"


def side_by_side(report, gate):
    """A model's column of the lesson's table, from its calibration report and its gate."""
    before, after = report["rubric_change"]["open"], report["rubric_change"]["facts"]
    rates = {rate["method"]: rate["value"] for rate in report["calibration"]["pass_rate"]}
    pairwise, style = report["pairwise"], report["self_preference"]
    wordy = [
        (score, case.human_score)
        for case, (_, score) in zip(load_calibration(), report["series"]["original"], strict=True)
        if case.mode == "wordy-wrong" and score is not None
    ]
    return {
        "kappa, open rubric -> checklist": f"{number(before['kappa'])} -> {number(after['kappa'])}",
        "padded twins, open rubric": shift(report["verbosity"]),
        "padded twins, checklist": f"mean delta {number(after['verbosity_mean_delta'])} "
        f"{interval(after['verbosity_ci'])} — {after['verbosity_verdict']}",
        "concise twins, open rubric": shift(report["concise"]),
        "both orders": f"{number(pairwise['swap_consistency'])} — {pairwise['verdict']}",
        "answers passed, judge (people)": f"{rates['judge only']:.0%} ({rates['people only']:.0%})",
        "wordy wrong answers, mean score (people)": f"{fmean(j for j, _ in wordy):.1f} "
        f"({fmean(p for _, p in wordy):.1f}), {len(wordy)} answers",
        "bullets over prose at equal quality": f"gap {number(style['gap'])} "
        f"{interval(style['ci'])}",
        "the gate": gate.stdout.strip().splitlines()[-1],
        "unscored replies": f"{report['unscored']['count']} of {report['judge']['calls']}",
    }


@pytest.mark.golden
def test_the_lesson_sets_the_two_models_side_by_side_as_replayed(tmp_path, cli):
    readme = (STAGE / "README.md").read_text()
    table = readme.split("### Two models side by side", 1)[1].split("\n#", 1)[0]
    rows = re.findall(r"^\| (.+?) \| `(.+?)` \| `(.+?)` \|$", table, flags=re.MULTILINE)
    quoted = {name: (small, large) for name, small, large in rows}
    columns = []
    for spec in ("replay", "replay:qwen-1.5b"):
        out = str(tmp_path / "report.json")
        report = json.loads(
            cli(COMMAND, "calibrate", "--judge", spec, "--json", "--out", out).stdout
        )
        columns.append(side_by_side(report, cli(COMMAND, "gate", "--judge", spec)))
    small, large = columns
    assert quoted == {name: (small[name], large[name]) for name in small}
    # the paragraphs that read the table quote its figures, and only those
    reading = table.split("|\n\n", 1)[1].split("What the larger model costs", 1)[0]
    cells = " ".join(f"{a} {b}" for a, b in quoted.values())
    for figure in re.findall(r"\d+\.\d+|\d+%", reading):
        assert re.search(rf"(?<![\d.]){re.escape(figure)}(?![\d])", cells), figure


@pytest.mark.golden
def test_the_lesson_quotes_the_local_model_s_numbers_as_replayed(tmp_path, cli):
    readme = (STAGE / "README.md").read_text()
    numbers = readme.split("### The local model's numbers", 1)[1].split("\n#", 1)[0]
    quoted = dict(re.findall(r"^- (.+?): `(.+)`$", numbers, flags=re.MULTILINE))
    out = str(tmp_path / "report.json")
    evaluation = json.loads(
        cli(COMMAND, "eval", "--judge", "replay", "--json", "--out", out).stdout
    )
    report = json.loads(
        cli(COMMAND, "calibrate", "--judge", "replay", "--json", "--out", out).stdout
    )
    gate = cli(COMMAND, "gate", "--judge", "replay")
    bare_config = str(STAGE / "bare.toml")
    bare = cli(COMMAND, "eval", "--judge", "replay", "--judge-config", bare_config, "--json",
               "--out", out)  # fmt: skip
    assert bare.returncode == 1  # the model answers in prose: nothing can be judged
    bare_report = json.loads(bare.stdout)
    padded = cli(COMMAND, "pad", "--judge", "replay", "--out", str(tmp_path / "twins.jsonl"))
    bare_gate = cli(COMMAND, "gate", "--judge", "replay", "--judge-config", bare_config)
    assert bare_gate.returncode == 1
    levels = evaluation["levels"]["end_to_end"]

    before, after = report["rubric_change"]["open"], report["rubric_change"]["facts"]
    kappa = report["calibration"]
    live = {
        "end to end": f"{levels['passed']} passed, {levels['failed']} failed, "
        f"{levels['unscored']} unscored of {evaluation['cases']['total']}",
        "position bias": position_line(evaluation),
        "length bias": length_line(evaluation),
        "verbosity": shift(report["verbosity"]),
        "concise": shift(report["concise"]),
        "pairwise swap consistency": f"{number(report['pairwise']['swap_consistency'])} — "
        f"{report['pairwise']['verdict']}",
        "self-preference": f"gap {number(report['self_preference']['gap'])} "
        f"{interval(report['self_preference']['ci'])} — {report['self_preference']['verdict']}",
        "kappa against the 48 human labels": f"{number(kappa['kappa'])} — {kappa['verdict']}, "
        f"{kappa['disagreements']} disagreements",
        "unscored replies": f"{report['unscored']['count']} of {report['judge']['calls']}",
        "the gate": gate.stdout.strip().splitlines()[-1],
        "rubric change (measured)": f"verbosity {number(before['verbosity_mean_delta'])} -> "
        f"{number(after['verbosity_mean_delta'])}, flips {before['flips']} -> "
        f"{after['flips']}, kappa {number(before['kappa'])} -> {number(after['kappa'])} — "
        f"{report['rubric_change']['verdict']}",
        "end to end, bare": "{passed} passed, {failed} failed, {unscored} unscored of ".format(
            **bare_report["levels"]["end_to_end"]
        )
        + str(bare_report["cases"]["total"]),
        "position bias, bare": position_line(bare_report),
        "the gate, bare": bare_gate.stdout.splitlines()[1].strip().split(" (", 1)[0],
        "model-made twins": padded.stdout.splitlines()[0].removeprefix("model-made twins: "),
        "replies in the recording": str(len(load(recording.recording(models.default())))),
    }
    assert quoted == live


@pytest.mark.failure_mode
def test_a_recording_that_lacks_questions_says_how_many_and_how_to_record_them(
    tmp_path, cli, monkeypatch
):
    lines = recording.recording(models.default()).read_text().splitlines(keepends=True)
    (tmp_path / "local_judge.jsonl").write_text("".join(lines[::2]))  # every other reply
    monkeypatch.setattr(recording, "FIXTURES", tmp_path)
    result = cli(COMMAND, "eval", "--judge", "replay", "--json", "--out", str(tmp_path / "r"))
    assert result.returncode == 1
    report = json.loads(result.stdout)
    missing = re.fullmatch(
        r"(\d+) of 32 questions are not in the recording .*local_judge\.jsonl; "
        r"record them with this command and `--judge local --record` "
        r"\(`make local-judge` records its runs\)",
        report["judge"]["unavailable"],
    )
    assert missing is not None, report["judge"]["unavailable"]
    assert report["judge"]["instrument"]["requests"] == 0  # nothing was asked of anyone
    assert int(missing[1]) + report["judge"]["instrument"]["from_cache"] == 32


@pytest.mark.failure_mode
def test_a_broken_recording_line_is_named_by_file_and_line(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"key": "a", "reply": "7"}\n{"key": "b"}\n')
    with pytest.raises(CourseInputError, match=r"r\.jsonl:2: expected"):
        load(path)
    path.write_text('{"key": "a", "reply": 7}\n')
    with pytest.raises(CourseInputError, match=r"r\.jsonl:1: key and reply must be text"):
        load(path)
    path.write_text("not json\n")
    with pytest.raises(CourseInputError, match=r"r\.jsonl:1: not JSON"):
        load(path)


def test_recording_again_counts_the_replies_that_changed_and_keeps_them_sorted(tmp_path):
    path = tmp_path / "r.jsonl"
    assert save({"b": "7", "a": "3"}, path=path).endswith(
        "0 of 0 it held already differ from this run's"
    )
    assert save({"a": "3", "b": "8", "c": "1"}, path=path).endswith(
        "1 of 2 it held already differ from this run's"
    )
    assert [json.loads(line) for line in path.read_text().splitlines()] == [
        {"key": "a", "reply": "3"}, {"key": "b", "reply": "8"}, {"key": "c", "reply": "1"}
    ]  # fmt: skip


@pytest.mark.failure_mode
def test_only_the_local_judge_is_recorded(cli, one_line_error):
    one_line_error(
        cli(COMMAND, "eval", "--judge", "steady", "--record"), "only --judge local is recorded"
    )
