"""A calibration history: a judge whose model changed is stale and named; a provider's silent
update fails on its figures and its canaries; an unchanged judge (the mirrored half) passes,
even a biased one, since the history measures change, not quality."""

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from fakes.judges import VersionedJudge
from stages.s01_model.errors import CourseInputError
from stages.s09_calibration.gate import load_gate
from stages.s11_drift import history
from stages.s11_drift.staleness import changes, history_rules, moved_away

STAGE = Path(__file__).resolve().parents[1]
VERSIONED, SUCCESSOR = "fakes.judges:VersionedJudge", "fakes.judges:successor_judge"
provider = {"version": 1}  # what the provider serves today under one name


def hosted() -> VersionedJudge:
    """The provider's model, as `--judge stages.s11_drift.checks.test_history:hosted`."""
    return VersionedJudge(version=provider["version"])


def run(cli, command, path, judge, *more):
    return cli("stages.s11_drift", command, "--history", str(path), "--judge", judge, *more)


def test_a_model_changed_in_the_third_record_fails_the_gate_naming_the_change(cli, tmp_path):
    path = tmp_path / "history.jsonl"
    assert run(cli, "calibrate", path, VERSIONED).returncode == 0
    assert run(cli, "gate", path, VERSIONED).returncode == 0  # the same judge: passes
    changed = run(cli, "gate", path, SUCCESSOR)
    assert changed.returncode == 1
    assert (
        "FAIL  same judge as calibrated: calibration stale: model shop-judge → shop-judge-2;"
        in (changed.stdout)
    )
    lesson = (STAGE / "README.md").read_text(encoding="utf-8")
    quoted = [line for line in lesson.splitlines() if line.startswith("  FAIL  same judge")]
    assert len(quoted) == 1 and quoted[0] in changed.stdout.splitlines()
    records = history.load(path)
    assert [r["command"] for r in records] == ["calibrate", "gate", "gate"]
    assert [r["fingerprint"]["model"] for r in records] == ["shop-judge"] * 2 + ["shop-judge-2"]
    assert records[2]["passed"] is False and "flip_threshold" in records[0]
    # the newest record is the other model's failed gate; the judge calibrated is unchanged
    again = run(cli, "gate", path, VERSIONED)
    assert again.returncode == 0, again.stdout
    assert "passed: 4 of 4 rules" in again.stdout


def test_a_silent_update_under_the_same_name_fails_on_its_figures_and_canaries(
    cli, tmp_path, monkeypatch
):
    path, spec = tmp_path / "history.jsonl", "stages.s11_drift.checks.test_history:hosted"
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
    assert records[0]["fingerprint"] == records[1]["fingerprint"]


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


def test_the_kappa_interval_agrees_with_scipys_bootstrap():
    rng = np.random.default_rng(5)
    people = [bool(x) for x in rng.integers(0, 2, 40)]
    judge = [p if rng.random() < 0.8 else not p for p in people]
    ours = history.kappa_interval(people, judge)

    def kappa(index):
        p, j = np.asarray(people)[index], np.asarray(judge)[index]
        observed = np.mean(p == j)
        chance = np.mean(p) * np.mean(j) + np.mean(~p) * np.mean(~j)
        return (observed - chance) / (1 - chance)

    theirs = stats.bootstrap(
        (np.arange(40),), kappa, method="percentile", n_resamples=2000, random_state=1
    ).confidence_interval
    # two seeded bootstraps of the same statistic: the ends agree to resampling noise
    assert ours is not None
    assert ours[0] == pytest.approx(theirs.low, abs=0.06)
    assert ours[1] == pytest.approx(theirs.high, abs=0.06)


def test_one_label_on_both_sides_has_no_kappa_interval():
    # kappa is undefined when judge and people each used one label only: chance agreement is 1
    assert history.kappa_interval([True] * 10, [True] * 10) is None
    assert history.kappa_interval([], []) is None


def test_a_changed_setting_is_named_and_the_key_is_never_in_a_fingerprint(monkeypatch):
    from stages.s08_eval.specs import JudgeChoice
    from stages.s10_real_judge.client import OpenAIJudge
    from stages.s10_real_judge.settings import Settings

    monkeypatch.setenv("OPENAI_BASE_URL", "https://judge.example.com/v1")
    secret = "sk-test-never-printed-123"

    def print_of(temperature):
        judge = OpenAIJudge("m1", Settings(temperature=temperature, journal=""), api_key=secret)
        return history.fingerprint(JudgeChoice(judge, "openai:m1", fake=False), "bare")

    cold, warm = print_of(0.0), print_of(0.8)
    assert secret not in json.dumps(cold) and cold["endpoint"] == "judge.example.com"
    assert changes(cold, warm) == ["temperature 0.0 → 0.8"]


def test_a_local_model_served_on_another_port_is_the_same_judge():
    from stages.s08_eval.specs import JudgeChoice
    from stages.s10_real_judge.client import OpenAIJudge
    from stages.s10_real_judge.settings import Settings

    def served_on(port):
        judge = OpenAIJudge("m1", Settings(journal=""), base_url=f"http://127.0.0.1:{port}/v1",
                            identity="local:abc123")  # fmt: skip
        return history.fingerprint(JudgeChoice(judge, "local", fake=False), "bare")

    assert changes(served_on(38085), served_on(44353)) == []
    assert served_on(38085)["endpoint"] == "local:abc123"


def test_a_judge_that_measured_nothing_is_not_recorded(cli, tmp_path):
    path = tmp_path / "history.jsonl"
    result = run(cli, "calibrate", path, "fakes.judges:SilentJudge")
    assert result.returncode == 1
    assert "error: not recorded: kappa_ci, verbosity_ci, flips not evaluated" in result.stderr
    assert not path.exists()


def test_a_gate_without_a_calibration_fails_every_history_rule(tmp_path):
    now = {"fingerprint": {}, "calibration_set": "x", "figures": {}}
    rules = history_rules([], now, load_gate())
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
    shown = cli("stages.s11_drift", "history", str(path))
    assert shown.returncode == 2 and "record 2 lacks 'command'" in shown.stderr


def test_history_prints_every_run_and_plots_every_figure(cli, tmp_path):
    path = tmp_path / "history.jsonl"
    assert run(cli, "calibrate", path, VERSIONED).returncode == 0
    assert run(cli, "gate", path, SUCCESSOR).returncode == 1
    shown = cli("stages.s11_drift", "history", str(path), "--plots", str(tmp_path / "plots"))
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[0].startswith("2 runs")
    assert "model shop-judge → shop-judge-2" in shown.stdout
    drawn = sorted(p.name for p in (tmp_path / "plots").iterdir())
    assert drawn == sorted(f"history_{name}.png" for name in history.FIGURES)
