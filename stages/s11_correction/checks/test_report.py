"""The full calibration report: its JSON keys, which a real judge's calibration keeps."""

import json

import pytest


def test_the_report_json_has_the_documented_keys(cli, tmp_path):
    report = json.loads(cli("stages.s11_correction", "report", "--json",
                            "--out", str(tmp_path / "r.json")).stdout)  # fmt: skip
    every = {"state", "reason", "usable", "total", "unscored", "verdict"}
    assert report["not_successful"] == [] and report["reply"] == "bare"
    for side in (report, report["control"]):
        for key in ("verbosity", "concise"):
            assert every | {"n", "repeats", "mean_delta", "ci", "share_higher", "flips"} == set(
                side[key]
            )
        assert every | {"kappa", "observed", "expected", "trustworthy", "disagreements",
                        "scored", "queue", "pass_rate"} == set(side["calibration"])  # fmt: skip
        assert every | {"spearman", "ci", "pearson"} == set(side["length_confound"])
        assert every | {"pairs", "gap", "ci"} == set(side["self_preference"])
        assert every | {"bullets", "prose", "tie", "pairs", "calls", "swap_consistency"} == set(
            side["pairwise"]
        )
        assert set(side["unscored"]) == {"count", "reasons", "example"}
        assert set(side["judge"]) == {"name", "calls", "calls_in_all", "unavailable"}
    assert every | {"open", "facts"} == set(report["rubric_change"])


@pytest.mark.failure_mode
def test_the_simulated_world_tells_the_judge_alone_from_the_corrections(cli):
    result = cli("stages.s11_correction", "correct")
    assert result.returncode == 0, result.stderr
    told = "the judge alone misses the truth; both corrections contain it"
    assert result.stdout.splitlines()[-1] == told


def test_the_full_report_prints_the_pass_rate_under_each_agreement(cli, tmp_path):
    result = cli("stages.s11_correction", "report", "--out", str(tmp_path / "r.json"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("pass rate of the set (95% intervals):") == 2  # judge, control
