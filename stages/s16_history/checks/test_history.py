"""A calibration history: a judge whose model changed is stale and named; a provider's silent
update fails on its figures and its canaries; an unchanged judge (the mirrored half) passes,
even a biased one, since the history measures change, not quality."""

import json
import subprocess
import sys
from dataclasses import fields, replace
from pathlib import Path

import pytest

from fakes.chat_server import ChatServer, answering_as
from fakes.judges import SteadyJudge, VersionedJudge
from stages.s01_model.errors import CourseInputError
from stages.s10_agreement.gate import Thresholds
from stages.s11_correction.certify import load_limits
from stages.s12_real_judge.checks.test_endpoint import (
    PASSWORD,
    ROTATED,
    TOKEN,
    USER,
    closed_port,
    everything,
    judge_config,
    shows_no_secret,
    with_secrets,
)
from stages.s13_local_model.schemas import StructuredJudge, StructuredSettings
from stages.s16_history import history
from stages.s16_history.records import FIGURES, Command, Entry, Figures, Fingerprint, FlipThreshold
from stages.s16_history.staleness import (
    changes,
    flips_held,
    history_rules,
    kappa_held,
    moved_away,
    same_judge,
    verbosity_held,
)

STAGE = Path(__file__).resolve().parents[1]
VERSIONED, SUCCESSOR = "fakes.judges:VersionedJudge", "fakes.judges:successor_judge"
LIGHTER = "fakes.judges:lighter_judge"  # another model, which agrees with people less often
provider = {"version": 1}  # what the provider serves today under one name


def hosted() -> VersionedJudge:
    """The provider's model, as `--judge stages.s16_history.checks.test_history:hosted`."""
    return VersionedJudge(version=provider["version"])


asked = {"score": 0, "compare": 0}  # the calls the judge below received


class ProseComparer:
    """Scores as the steady judge does; compares in a sentence, which is never usable."""

    def score(self, *texts):
        asked["score"] += 1
        return SteadyJudge().score(*texts)

    def compare(self, *texts):
        asked["compare"] += 1
        return "The first one, I would say."


def run(cli, command, path, judge, *more):
    return cli("stages.s16_history", command, "--history", str(path), "--judge", judge, *more)


def figures(**given):
    """Figures with every figure not measured (None), N of 40 and no scores, but those given."""
    nothing = {f.name: None for f in fields(Figures)}
    return Figures(**{**nothing, "of": 40, "scores": (), "agreed": (), "shifts": (), **given})


def fingerprint(**given):
    """A judge's fingerprint: model m, no settings, but those given."""
    parts = {"spec": "s", "model": "m", "endpoint": "e", "settings": {}, "prompts": "p"}
    return Fingerprint(**{**parts, "rubric": "r", **given})


def entry(command="calibrate", print_=None, calibration_set="s", **given):
    """A record of one run, `given` its figures."""
    return Entry(
        "then", Command(command), print_ or fingerprint(), calibration_set, figures(**given)
    )


def test_a_model_changed_in_the_third_record_fails_the_gate_naming_the_change(cli, tmp_path):
    path = tmp_path / "history.jsonl"
    assert run(cli, "calibrate", path, VERSIONED).returncode == 0
    assert run(cli, "gate", path, VERSIONED).returncode == 0  # the same judge: passes
    changed = run(cli, "gate", path, LIGHTER)
    assert changed.returncode == 1
    assert (
        "FAIL  same judge as calibrated: calibration stale: model shop-judge → shop-judge-mini;"
        in (changed.stdout)
    )
    lesson = (STAGE / "README.md").read_text(encoding="utf-8")
    quoted = [line for line in lesson.splitlines() if line.startswith("  FAIL  same judge")]
    assert len(quoted) == 1 and quoted[0] in changed.stdout.splitlines()
    records = history.load(path)
    assert [r.command for r in records] == ["calibrate", "gate", "gate"]
    assert [r.fingerprint.model for r in records] == ["shop-judge"] * 2 + ["shop-judge-mini"]
    assert records[2].passed is False and records[0].flip_threshold is not None
    # the newest record is the other model's failed gate; the judge calibrated is unchanged
    again = run(cli, "gate", path, VERSIONED)
    assert again.returncode == 0, again.stdout
    assert "passed: 4 of 4 rules" in again.stdout


def test_the_gates_json_is_stage_11s_with_the_historys_rules_and_one_verdict(cli, tmp_path):
    path = tmp_path / "history.jsonl"
    assert run(cli, "calibrate", path, VERSIONED).returncode == 0
    text = run(cli, "gate", path, LIGHTER)
    result = run(cli, "gate", path, LIGHTER, "--json")
    shown = json.loads(result.stdout)  # one object, nothing printed beside it
    assert set(shown) == {"judge", "unscored", "config", "rules", "passed", "history"}
    assert set(shown["history"]) == {"file", "runs", "rules"}
    assert shown["history"]["runs"] == 2  # the calibration, and the text gate's record
    printed = [line for line in text.stdout.splitlines() if line.startswith(("  pass", "  FAIL"))]
    assert len(shown["rules"]) == 5 and len(printed) == 5 + len(shown["history"]["rules"])
    stale = shown["history"]["rules"][0]  # the lighter model is not the model calibrated
    assert (stale["name"], stale["passed"]) == ("same judge as calibrated", False)
    assert f"  FAIL  same judge as calibrated: {stale['value']} — {stale['limit']}" in printed
    assert (result.returncode, text.returncode, shown["passed"]) == (1, 1, False)
    assert [r.passed for r in history.load(path)] == [None, False, False]  # each gate kept


def test_a_successor_shown_equivalent_answer_by_answer_is_recalibrated_not_stale(cli, tmp_path):
    path = tmp_path / "history.jsonl"
    assert run(cli, "calibrate", path, VERSIONED).returncode == 0
    successor = run(cli, "gate", path, SUCCESSOR)  # another model, which grades as the first
    assert successor.returncode == 0, successor.stdout
    same = [line for line in successor.stdout.splitlines() if "same judge" in line]
    assert same == [
        "  pass  same judge as calibrated: recalibrated and equivalent: model shop-judge → "
        "shop-judge-2; spec fakes.judges:VersionedJudge → fakes.judges:successor_judge; "
        "agreement with people +0.00 over 48 pairs, within ±0.10 (p 0.000); padded twins' gain "
        "+0.00 over 48 pairs, within ±0.50 (p 0.000) — as last calibrated"
    ]
    lesson = " ".join((STAGE / "README.md").read_text(encoding="utf-8").split())
    assert "recalibrated and equivalent: model shop-judge → shop-judge-2;" in lesson


@pytest.mark.failure_mode
def test_a_changed_judge_too_little_measured_to_show_equivalence_stays_stale():
    limits, old = load_limits(), fingerprint()
    agreed = (1.0, 0.0, 1.0, 1.0)
    before = entry(print_=old, agreed=agreed, shifts=(0.0, 0.0, 0.0, 0.0))
    changed = fingerprint(model="m2")
    # one answer the new judge scored: no spread to test, no equivalence to show
    lone = entry(print_=changed, agreed=(1.0, None, None, None), shifts=(0.0, None, None, None))
    rule = same_judge(before, lone, limits)
    assert not rule.passed and "1 answers scored by both cannot show the agreement" in rule.value
    # an older history keeps no figures answer by answer: nothing to pair
    older = same_judge(entry(print_=old), entry(print_=changed, agreed=agreed), limits)
    assert not older.passed and "no figures answer by answer" in older.value
    # the same verdicts on every answer: equivalent, whatever the margin
    alike = same_judge(before, entry(print_=changed, agreed=agreed, shifts=(0.0,) * 4), limits)
    assert alike.passed and alike.value.startswith("recalibrated and equivalent: model m → m2;")


def test_a_silent_update_under_the_same_name_fails_on_its_figures_and_canaries(
    cli, tmp_path, monkeypatch
):
    path, spec = tmp_path / "history.jsonl", "stages.s16_history.checks.test_history:hosted"
    assert run(cli, "calibrate", path, spec).returncode == 0
    monkeypatch.setitem(provider, "version", 2)
    updated = run(cli, "gate", path, spec, "--canaries")
    assert updated.returncode == 1
    failed = {line.split(":")[0].split("FAIL  ")[1] for line in updated.stdout.splitlines()
              if line.startswith("  FAIL  ")}  # fmt: skip
    # the fingerprint is the same (the name did not change): the figures and canaries say it
    assert {"kappa held", "verbosity held", "flips", "canaries"} <= failed
    assert "same judge as calibrated" not in failed
    records = history.load(path)
    assert records[0].fingerprint == records[1].fingerprint


def test_an_unchanged_biased_judge_holds_its_history_though_it_fails_the_gate(cli, tmp_path):
    path = tmp_path / "history.jsonl"
    assert run(cli, "calibrate", path, "biased").returncode == 0
    gate = run(cli, "gate", path, "biased")
    assert gate.returncode == 1  # stage 9's rules: the biased judge is not fit to gate
    lines = gate.stdout.split("against the history")[1].splitlines()
    held = [line for line in lines if line.startswith("  pass  ")]
    assert [line.split(":")[0].strip() for line in held] == [
        "pass  same judge as calibrated",
        "pass  verbosity held",
        "pass  flips",
    ]  # its kappa's interval lies below the gate's minimum: that rule fails, as it should


def test_moved_away_means_wholly_beyond_the_baseline_on_the_far_side_from_zero():
    assert moved_away((0.5, 1.4), (1.5, 2.0))  # wholly above a positive baseline
    assert not moved_away((0.5, 1.4), (1.0, 2.0))  # overlapping: noise, not a move
    assert moved_away((-0.2, 0.3), (0.4, 0.9))  # from around zero to above it
    assert moved_away((-0.2, 0.3), (-0.9, -0.4))  # or below it
    assert not moved_away((0.5, 1.4), (-0.1, 0.2))  # back towards zero is not away


@pytest.mark.failure_mode
def test_each_history_rule_holds_fails_or_is_not_evaluated_and_never_passes_on_nothing():
    limits = Thresholds(fail_on_verbosity_bias=True, max_flip_rate=0.05, min_kappa=0.60)
    first = figures(kappa=0.67, verbosity_ci=(-0.1, 0.1))
    held = kappa_held(first, figures(kappa_ci=(0.30, 0.67)), limits)  # reaches both, just
    assert held.passed and held.value == "[+0.30, +0.67]"
    assert held.limit == "reaches the gate's 0.60 and the baseline's 0.67"
    lower = kappa_held(first, figures(kappa_ci=(0.30, 0.62)), limits)
    assert not lower.passed and lower.value == "[+0.30, +0.62], wholly below the baseline"
    worst = kappa_held(first, figures(kappa_ci=(0.10, 0.50)), limits)
    assert worst.value == "[+0.10, +0.50], wholly below the gate and the baseline"
    same = verbosity_held(first, figures(verbosity_ci=(0.05, 0.3)))
    assert same.passed and same.value == "[+0.05, +0.30]"
    moved = verbosity_held(first, figures(verbosity_ci=(0.15, 0.3)))
    assert not moved.passed and moved.value == "[+0.15, +0.30], moved away from zero"
    kept = FlipThreshold(0.05, "the first calibration's")
    assert flips_held(kept, figures(flips=2)).passed  # 2 of 40 is 0.05: at the threshold
    over = flips_held(kept, figures(flips=3))
    assert not over.passed and over.value == "0.07 (3 of 40)"
    assert over.limit == "at most 0.05, the first calibration's"
    nothing = [
        kappa_held(first, figures(kappa_ci=None), limits),
        kappa_held(figures(kappa=None), figures(kappa_ci=(0.7, 0.9)), limits),
        verbosity_held(first, figures(verbosity_ci=None)),
        verbosity_held(figures(verbosity_ci=None), figures(verbosity_ci=(0.0, 0.1))),
        flips_held(None, figures(flips=0)),
        flips_held(kept, figures(flips=None)),
        flips_held(kept, figures(flips=0, of=0)),
    ]
    assert [rule.passed for rule in nothing] == [False] * len(nothing)
    assert all(rule.value.startswith("not evaluated (") for rule in nothing)
    assert nothing[4].value == "not evaluated (threshold not recorded in the baseline)"


def test_a_setting_added_or_dropped_is_named_and_so_is_a_new_calibration_set():
    before = fingerprint(settings={"temperature": 0.0})
    after = fingerprint(settings={"temperature": 0.0, "seed": 7})
    assert changes(before, after) == ["seed None → 7"]
    assert changes(after, before) == ["seed 7 → None"]
    calibrated = entry(print_=before, calibration_set="s1")
    stale = same_judge(calibrated, entry(print_=before, calibration_set="s2"), load_limits())
    assert not stale.passed
    assert stale.value == (
        "calibration stale: calibration set changed; other answers: nothing to pair; recalibrate"
    )
    held = same_judge(calibrated, entry(print_=before, calibration_set="s1"), load_limits())
    assert held.passed and held.value == "the judge calibrated then"


def test_a_changed_setting_is_named_and_the_key_is_never_in_a_fingerprint(monkeypatch):
    from stages.s08_eval.specs import JudgeChoice
    from stages.s12_real_judge.client import OpenAIJudge
    from stages.s12_real_judge.settings import Settings

    monkeypatch.setenv("OPENAI_BASE_URL", "https://judge.example.com/v1")
    secret = "sk-test-never-printed-123"

    def print_of(temperature):
        judge = OpenAIJudge("m1", Settings(temperature=temperature, journal=""), api_key=secret)
        return history.fingerprint(JudgeChoice(judge, "openai:m1", fake=False), "bare")

    cold, warm = print_of(0.0), print_of(0.8)
    assert (
        secret not in json.dumps(cold.to_json()) and cold.endpoint == "https://judge.example.com/v1"
    )
    assert changes(cold, warm) == ["temperature 0.0 → 0.8"]
    assert (cold.model, cold.settings["reply"], cold.settings["structured"]) == (
        "m1", "bare", ""
    )  # fmt: skip
    structured = StructuredSettings(structured="json_schema", journal="")
    schema = StructuredJudge("m1", structured, api_key=secret)
    sent = history.fingerprint(JudgeChoice(schema, "openai:m1", fake=False), "structured")
    assert changes(cold, sent) == [
        "reply 'bare' → 'structured'", "structured '' → 'json_schema'"
    ]  # fmt: skip
    monkeypatch.setattr("stages.s12_real_judge.prompts.SCORE", "Rate it.")  # a prompt edited
    assert changes(cold, print_of(0.0)) == [f"prompts {cold.prompts} → {print_of(0.0).prompts}"]


def test_a_judge_asked_in_process_is_known_by_its_spec():
    from fakes.judges import SteadyJudge
    from stages.s08_eval.specs import JudgeChoice

    found = history.fingerprint(JudgeChoice(SteadyJudge(), "steady", fake=True), "bare")
    assert {key: getattr(found, key) for key in ("spec", "model", "endpoint", "prompts")} == {
        "spec": "steady", "model": "steady", "endpoint": "in process",
        "prompts": "none: asked in process",
    }  # fmt: skip
    assert found.settings == {"reply": "bare", "structured": ""}


def test_a_local_model_served_on_another_port_is_the_same_judge():
    from stages.s08_eval.specs import JudgeChoice
    from stages.s12_real_judge.client import OpenAIJudge
    from stages.s12_real_judge.settings import Settings

    def served_on(port):
        judge = OpenAIJudge("m1", Settings(journal=""), base_url=f"http://127.0.0.1:{port}/v1")
        judge.identity = "local:abc123"  # as the local judge is known, by its model file
        return history.fingerprint(JudgeChoice(judge, "local", fake=False), "bare")

    assert changes(served_on(38085), served_on(44353)) == []
    assert served_on(38085).endpoint == "local:abc123"


def test_a_judge_that_measured_nothing_is_not_recorded(cli, tmp_path):
    path = tmp_path / "history.jsonl"
    result = run(cli, "calibrate", path, "fakes.judges:SilentJudge")
    assert result.returncode == 1
    assert "error: not recorded: kappa_ci, verbosity_ci, flips not evaluated" in result.stderr
    assert not path.exists()


def test_only_a_calibration_that_starts_a_baseline_keeps_a_flip_threshold():
    def record(command, model, flips, of=48):
        return entry(command, fingerprint(model=model), flips=flips, of=of)

    first = history.with_threshold(record("calibrate", "a", 3), [])
    assert first.flip_threshold == FlipThreshold(
        3 / 48, "the share of this first calibration, 3 of 48: a later run may not flip more"
    )
    assert history.with_threshold(record("gate", "b", 3), []).flip_threshold is None
    again = history.with_threshold(record("calibrate", "a", 5), [first])  # same baseline
    assert again.flip_threshold is None
    unmeasured = history.with_threshold(record("calibrate", "c", None), [first])
    assert unmeasured.flip_threshold == FlipThreshold(
        None, "not set: this calibration's flips were not evaluated"
    )


def test_the_unscored_share_is_the_share_of_calls_that_gave_nothing_usable(cli, tmp_path):
    asked.update(score=0, compare=0)
    path = tmp_path / "history.jsonl"
    run(cli, "calibrate", path, "stages.s16_history.checks.test_history:ProseComparer")
    found = history.load(path)[0].figures
    assert asked["compare"] > 0 and found.swap_consistency is None
    share = asked["compare"] / (asked["score"] + asked["compare"])
    assert found.unscored_share == pytest.approx(share)


def test_a_gate_without_a_calibration_fails_every_history_rule(tmp_path):
    rules = history_rules([], entry("gate"), load_limits())
    assert len(rules) == 4 and not any(rule.passed for rule in rules)
    assert all("no calibration in the history" in rule.value for rule in rules)


def test_a_broken_history_line_is_named_and_a_bom_is_read(cli, tmp_path):
    path = tmp_path / "history.jsonl"
    assert run(cli, "calibrate", path, VERSIONED).returncode == 0
    line = path.read_text(encoding="utf-8")
    path.write_text("\ufeff" + line, encoding="utf-8")  # as some editors save it
    assert len(history.load(path)) == 1
    path.write_text(line + '{"when": "today"}\n', encoding="utf-8")
    with pytest.raises(CourseInputError, match="record 2 lacks 'command'"):
        history.load(path)
    shown = cli("stages.s16_history", "history", str(path))
    assert shown.returncode == 2 and "record 2 lacks 'command'" in shown.stderr


def test_every_line_reads_back_as_its_record_and_writes_as_it_was(cli, tmp_path):
    path = tmp_path / "history.jsonl"
    assert run(cli, "calibrate", path, VERSIONED).returncode == 0
    assert run(cli, "gate", path, VERSIONED).returncode == 0
    assert run(cli, "gate", path, LIGHTER).returncode == 1
    lines = path.read_text(encoding="utf-8").splitlines()
    common = {"when", "command", "fingerprint", "calibration_set", "figures"}
    # the README's record: the baseline keeps its flip threshold, a gate its verdict
    assert [set(json.loads(line)) - common for line in lines] == [
        {"flip_threshold"}, {"passed"}, {"passed"}
    ]  # fmt: skip
    for line, record in zip(lines, history.load(path), strict=True):
        assert json.dumps(record.to_json(), sort_keys=True) == line  # nothing lost or added
        assert Entry.from_json(record.to_json()) == record
    unmeasured = replace(record, figures=figures(), flip_threshold=FlipThreshold(None, "how"))
    assert json.loads(json.dumps(unmeasured.to_json()))["figures"]["kappa"] is None  # not 0
    assert Entry.from_json(json.loads(json.dumps(unmeasured.to_json()))) == unmeasured


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("broken", "named"),
    [
        (lambda r: r.pop("command"), "record 1 lacks 'command': not a calibration history"),
        (lambda r: r.update(command="eval"), "record 1 command 'eval': not a calibration"),
        (lambda r: r.update(fingerprint="m"), "record 1: fingerprint and figures are objects"),
        (lambda r: r["figures"].pop("kappa"), "record 1: no figures.kappa"),
        (lambda r: r["figures"].pop("scores"), "record 1: no figures.scores"),
        (lambda r: r["fingerprint"].pop("model"), "record 1: no fingerprint.model"),
        (lambda r: r["flip_threshold"].pop("how"), "record 1: no flip_threshold.how"),
        (lambda r: r.update(flip_threshold=0.1), "record 1: flip_threshold is an object"),
        # the right keys, the wrong contents: each would fail later, far from the line
        (lambda r: r["figures"].update(kappa="high"),
         'record 1: figures.kappa is "high", expected a number or null'),
        (lambda r: r["figures"].update(kappa_ci=[0.1]),
         "record 1: figures.kappa_ci is [0.1], expected a list of 2 numbers or null"),
        (lambda r: r["figures"].update(flips=True),
         "record 1: figures.flips is true, expected a whole number or null"),
        (lambda r: r["figures"].update(scores=[7, "x"]),
         'record 1: figures.scores is [7, "x"], expected a list of numbers'),
        (lambda r: r["fingerprint"].update(model=None),
         "record 1: fingerprint.model is null, expected text"),
        (lambda r: r["fingerprint"].update(settings=[1]),
         "record 1: fingerprint.settings is [1], expected an object"),
        (lambda r: r.update(passed="yes"), 'record 1: passed is "yes", expected true or false'),
        (lambda r: r["flip_threshold"].update(share="10%"),
         'record 1: flip_threshold.share is "10%", expected a number or null'),
    ],
)  # fmt: skip
def test_a_line_that_is_not_a_record_is_refused_naming_the_file_and_the_record(
    tmp_path, broken, named
):
    path = tmp_path / "history.jsonl"
    baseline = replace(entry(), flip_threshold=FlipThreshold(0.1, "how"))
    line = json.loads(json.dumps(baseline.to_json()))
    Entry.from_json(line)  # whole, it is a record
    broken(line)
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    with pytest.raises(CourseInputError) as refused:
        history.load(path)
    assert str(refused.value).startswith(f"{path}: ") and named in str(refused.value)


def test_history_prints_every_run_and_plots_every_figure(cli, tmp_path):
    path = tmp_path / "history.jsonl"
    assert run(cli, "calibrate", path, VERSIONED).returncode == 0
    assert run(cli, "gate", path, LIGHTER).returncode == 1
    shown = cli("stages.s16_history", "history", str(path), "--plots", str(tmp_path / "plots"))
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[0].startswith("2 runs")
    assert "model shop-judge → shop-judge-mini" in shown.stdout
    drawn = sorted(p.name for p in (tmp_path / "plots").iterdir())
    assert drawn == sorted(f"history_{name}.png" for name in FIGURES)


@pytest.mark.failure_mode
def test_a_last_line_cut_short_is_named_read_up_to_and_replaced_by_the_next_run(
    cli, tmp_path, capsys
):
    path = tmp_path / "history.jsonl"
    assert run(cli, "calibrate", path, VERSIONED).returncode == 0
    whole = path.read_text(encoding="utf-8")
    path.write_text(whole + whole[:300], encoding="utf-8")  # a run stopped while appending
    (tmp_path / "whole.jsonl").write_text(whole, encoding="utf-8")
    assert history.load(path) == history.load(tmp_path / "whole.jsonl")
    warned = capsys.readouterr().err
    assert f"warning: --history {path}:2: the last line is cut short" in warned
    assert "read the 1 records before it" in warned
    assert run(cli, "calibrate", path, VERSIONED).returncode == 0
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and lines[0] == whole.strip()  # the tear is gone, the record whole
    assert [r.command for r in history.load(path)] == [Command.CALIBRATE] * 2
    path.write_text(whole.strip(), encoding="utf-8")  # a whole line saved without its end
    assert run(cli, "gate", path, VERSIONED).returncode == 0
    assert len(history.load(path)) == 2


@pytest.mark.failure_mode
def test_a_line_another_run_is_still_writing_is_waited_for_not_cut_as_a_tear(tmp_path):
    import fcntl
    import threading

    path = tmp_path / "history.jsonl"
    one = json.dumps(entry().to_json(), sort_keys=True) + "\n"
    with path.open("ab") as other:  # another run, its lock taken, half-way through its line
        fcntl.flock(other, fcntl.LOCK_EX)
        other.write(one[:300].encode())
        other.flush()
        writer = threading.Thread(target=history.append, args=(path, entry()), daemon=True)
        writer.start()
        writer.join(0.5)
        assert writer.is_alive(), "appended past another run's lock"
        assert path.read_text(encoding="utf-8") == one[:300]  # its half line not cut as a tear
        other.write(one[300:].encode())
    writer.join(30)  # a safety net: the lock is free once the other run's file is closed
    assert not writer.is_alive() and len(history.load(path)) == 2


@pytest.mark.failure_mode
def test_a_history_append_that_fails_half_way_leaves_the_file_as_it_was(tmp_path):
    path = tmp_path / "history.jsonl"
    one = json.dumps(entry().to_json(), sort_keys=True) + "\n"
    path.write_text(one * 3, encoding="utf-8")
    limit = path.stat().st_size + len(one) // 2  # room for half a record
    script = (
        "import resource, sys; from pathlib import Path; from stages.s16_history import history;"
        f"from stages.s16_history.checks.test_history import entry; resource.setrlimit("
        f"resource.RLIMIT_FSIZE, ({limit}, {limit})); history.append(Path({str(path)!r}), entry())"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=STAGE.parents[1],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert "CourseInputError: --history" in done.stderr and "File too large" in done.stderr
    assert path.read_text(encoding="utf-8") == one * 3  # not three records and a half
    assert len(history.load(path)) == 3


@pytest.mark.failure_mode
def test_a_canary_threshold_below_zero_is_refused(cli):
    refused = cli("stages.s16_history", "canary", "--threshold", "-1")
    assert refused.returncode == 2
    assert "--threshold: -1: a number of changes is 0 or more" in refused.stderr


# the endpoint's credentials (stage 12's check of them, test_endpoint.py) in the history a team
# commits: never there, and a rotated password is the same judge, not a stale calibration


@pytest.mark.failure_mode
def test_a_history_holds_no_password_and_one_fingerprint_for_two(cli, monkeypatch, tmp_path):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    history, wire = tmp_path / "history.jsonl", judge_config(tmp_path)
    calibrate = ["stages.s16_history", "calibrate", "--history", str(history), *wire]
    with ChatServer(default=answering_as(SteadyJudge())) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", with_secrets(server.url))
        runs = [cli(*calibrate)]
        asked = len(server.requests)
        monkeypatch.setenv("OPENAI_BASE_URL", with_secrets(server.url, USER, *ROTATED))
        runs.append(cli(*calibrate))
        assert len(server.requests) == asked > 0  # rotated: every reply found in the journal
    monkeypatch.setenv("OPENAI_BASE_URL", with_secrets(f"http://127.0.0.1:{closed_port()}/v1"))
    runs.append(cli(*calibrate))  # a dead endpoint: nothing measured, nothing recorded
    assert [run.returncode for run in runs] == [0, 0, 1], runs[-1].stderr
    records = [json.loads(line) for line in history.read_text().splitlines()]
    assert [record["fingerprint"]["endpoint"] for record in records] == [server.url] * 2
    assert records[0]["fingerprint"] == records[1]["fingerprint"]  # the same judge: not stale
    assert shows_no_secret(everything(runs, tmp_path), USER, PASSWORD, TOKEN, *ROTATED)
