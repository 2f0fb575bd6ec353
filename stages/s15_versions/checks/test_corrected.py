"""The corrected number on a run: `correct` on a stage-8 report and people's labels, and the
corrected change in `compare`. Expected figures are derived by hand beside each check; the
estimates themselves are stage 9's, checked there against judgy and ppi-python."""

import json
import re
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pytest

from stages.s01_model.cli import FIXTURES
from stages.s08_eval.cases import load_cases, run_case
from stages.s08_eval.report import evaluation
from stages.s08_eval.specs import resolve
from stages.s11_correction.correction import Tally, pass_rate
from stages.s11_correction.estimates import lines
from stages.s11_correction.simulation import LESSON_SEED, World, simulate
from stages.s15_versions.corrected import LabelColumns, correct, read_labels, verdicts
from stages.s15_versions.corrected_change import differences

LABELS = FIXTURES / "s08_labels.csv"
STAGE = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """Stage 8's report of its own cases under the biased judge, as a file."""
    runs = [run_case(case) for case in load_cases()]
    path = tmp_path_factory.mktemp("run") / "s08.json"
    path.write_text(json.dumps(evaluation(runs, resolve("biased"), resolve("steady")).to_json()))
    return path


def labels(tmp_path, text, name="labels.csv", encoding="utf-8"):
    path = tmp_path / name
    path.write_text(text, encoding=encoding)
    return str(path)


def test_the_simulation_shows_the_judge_alone_missing_the_truth(cli):
    result = cli("stages.s15_versions", "correct")
    assert result.returncode == 0, result.stderr
    expected = lines(pass_rate(simulate(World(), LESSON_SEED)))
    assert all(line in result.stdout.splitlines() for line in expected)
    assert "the judge alone misses the truth; both corrections contain it" in result.stdout


def test_a_run_with_labels_on_some_cases_is_corrected(cli, report):
    result = cli("stages.s15_versions", "correct", str(report), str(LABELS), "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    found = json.loads(result.stdout)
    # stage 8's 24 cases: the judge scores 22 and passes all of them; two have no verdict
    assert found["cases"] == 24 and found["unscored"] == ["never-answers", "empty-reply"]
    rate = found["pass_rate"]
    # 12 labels, one on a case with no verdict (never-answers): 11 used, 10 of them passes
    assert (rate["labelled"], rate["unlabelled"]) == (11, 11)
    only, people, rg, ppi = rate["estimates"]
    assert only["value"] == 1.0 and people["value"] == pytest.approx(10 / 11)
    # the one human fail (wrong-answer) is passed: TNR 0, no better than chance
    assert "TPR 1.00 + TNR 0.00 = 1.00, not above 1" in rg["reason"]
    # a judge that passes everything says nothing: lambda 0 leaves the people's rate
    assert ppi["value"] == pytest.approx(10 / 11) and "same verdict" in ppi["note"]
    assert ppi["ci"][1] == 1.0 and "cut at [0, 1]" in ppi["note"]  # never past 1
    assert found["mean_score"] is None  # pass/fail words: no score to average


def test_numeric_labels_give_the_mean_score_too(cli, report, tmp_path):
    scores = {"where-a1001": 9, "wrong-answer": 3, "return-window": 8, "price-match": 7,
              "status-a1003": 9, "delivered-a1002": 10, "unknown-order": 8, "refund-timing": 8,
              "express-cost": 9, "damaged-item": 9}  # fmt: skip
    text = "id,human\n" + "".join(f"{case},{score}\n" for case, score in scores.items())
    result = cli("stages.s15_versions", "correct", str(report), labels(tmp_path, text))
    assert result.returncode == 0, result.stdout + result.stderr
    mean = result.stdout.split("mean score (95% intervals):\n", 1)[1]
    # the people's mean: (9 + 3 + 8 + 7 + 9 + 10 + 8 + 8 + 9 + 9) / 10 = 8.0
    assert "  people only         8.000 [" in mean
    fewer = "id,human\nwhere-a1001,9\nwrong-answer,3\n"
    result = cli("stages.s15_versions", "correct", str(report), labels(tmp_path, fewer, "two.csv"))
    assert (
        "people only         NOT EVALUATED — 2 scores: a normal interval needs at least 10"
        in result.stdout
    )


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("id,human\nnot-a-case,pass\n", "the report does not hold: ['not-a-case']"),
        ("id,human\nwrong-answer,fail\nwrong-answer,pass\n",
         "row 3: case 'wrong-answer' is labelled a second time"),
        ("id,human\nwrong-answer,maybe\n", "row 2: human label 'maybe' in column 'human' is"),
        ("id,person\nwrong-answer,fail\n", "no column 'human' in the header"),
        ("id,human\nwrong-answer,0\nwhere-a1001,0.5\n", "every human label is a number from"),
    ],
)  # fmt: skip
def test_a_label_that_cannot_be_used_stops_the_command_with_its_row(
    cli, one_line_error, report, tmp_path, text, message
):
    one_line_error(
        cli("stages.s15_versions", "correct", str(report), labels(tmp_path, text)), message
    )


def test_a_spreadsheet_s_bom_and_semicolons_are_read(cli, report, tmp_path):
    text = "id;human\nwrong-answer;fail\nwhere-a1001;pass\n"
    path = labels(tmp_path, text, encoding="utf-8-sig")
    result = cli("stages.s15_versions", "correct", str(report), path, "--json")
    assert json.loads(result.stdout)["pass_rate"]["labelled"] == 2


def test_no_usable_label_is_not_evaluated_and_exits_1(cli, report, tmp_path):
    result = cli(
        "stages.s15_versions", "correct", str(report), labels(tmp_path, "id,human\nwrong-answer,\n")
    )
    assert result.returncode == 1
    assert "people only         NOT EVALUATED — no human labels" in result.stdout
    assert "corrected pass rate: NOT EVALUATED — neither correction could be made" in result.stdout


def test_files_that_are_not_a_report_and_labels_are_one_line(cli, one_line_error, tmp_path):
    one_line_error(
        cli("stages.s15_versions", "correct", str(LABELS)),
        "give a stage-8 report and a labels file, not 1",
    )
    gate = cli("stages.s15_versions", "correct", str(LABELS), str(LABELS), "--gate", "nan")
    one_line_error(gate, "--gate nan: expected a finite number")
    listing = labels(tmp_path, "[1, 2]", "list.json")
    one_line_error(
        cli("stages.s15_versions", "correct", listing, str(LABELS)), "not a stage-8 report"
    )


def test_the_change_keeps_each_version_s_own_error_rates():
    # before: people pass 60 of 100 and the judge agrees; after: the same people's verdicts,
    # but the judge also passes 30 of the 40 fails (TNR 0.25): it "improved" by 0.30
    before = Tally(((40, 0), (0, 60)), 300, 500)
    after = Tally(((10, 30), (0, 60)), 480, 500)
    people, rg, ppi = differences(before, after)
    assert people.value == 0.0  # the same labels
    # Rogan-Gladen: after, TPR 1, TNR 0.25: (570/600 + 0.25 - 1) / 0.25 = 0.8; before 0.6
    assert rg.value == pytest.approx(0.8 - 0.6)
    assert rg.ci and rg.value is not None and rg.ci[0] < rg.value < rg.ci[1]
    assert ppi.value is not None and ppi.ci and ppi.ci[0] <= ppi.value <= ppi.ci[1]


def rows(t: Tally):
    """A tally as one row per case: (labelled, person, judge); the person is -1 where no
    person labelled the case."""
    (tn, fp), (fn, tp) = t.table
    cells = [(1, 0, 0)] * tn + [(1, 0, 1)] * fp + [(1, 1, 0)] * fn + [(1, 1, 1)] * tp
    rest = [(0, -1, 1)] * t.passed + [(0, -1, 0)] * (t.unlabelled - t.passed)
    return np.array(cells + rest)


def rogan_gladen_of(table):
    """Rogan-Gladen on rows, written apart from the module: (p + TNR - 1) / (TPR + TNR - 1)."""
    labelled = table[table[:, 0] == 1]
    people, judge = labelled[:, 1] == 1, labelled[:, 2] == 1
    tpr, tnr = judge[people].mean(), (~judge[~people]).mean()
    return (table[:, 2].mean() + tnr - 1) / (tpr + tnr - 1)


def test_each_change_s_interval_is_the_one_an_independent_computation_gives():
    before, after = simulate(World(), 21), simulate(World(rate=0.62), 22)
    people, rg, ppi = differences(before, after)
    z = NormalDist().inv_cdf(0.975)
    # people only: the two label sets' normal errors combined
    shares = [sum(t.table[1]) / t.labelled for t in (before, after)]
    error = sum(p * (1 - p) / 600 for p in shares) ** 0.5
    assert people.value == pytest.approx(shares[1] - shares[0])
    assert people.ci == pytest.approx((people.value - z * error, people.value + z * error))
    # Rogan-Gladen: a bootstrap of rows, each stratum (labelled, not) resampled within itself
    rng, drawn = np.random.default_rng(3), []
    tables = [rows(before), rows(after)]
    for _ in range(2000):
        again = []
        for table in tables:
            parts = [table[table[:, 0] == k] for k in (1, 0)]
            again.append(np.vstack([part[rng.integers(0, len(part), len(part))] for part in parts]))
        drawn.append(
            np.clip(rogan_gladen_of(again[1]), 0, 1) - np.clip(rogan_gladen_of(again[0]), 0, 1)
        )
    assert rg.value == pytest.approx(rogan_gladen_of(tables[1]) - rogan_gladen_of(tables[0]))
    # two seeded bootstraps of 2000: their ends agree to resampling noise
    assert rg.ci == pytest.approx(tuple(np.quantile(drawn, [0.025, 0.975])), abs=0.008)
    # prediction-powered: each side's interval from ppi-python, their errors combined
    import ppi_py

    sides = []
    for table in tables:
        labelled, rest = table[table[:, 0] == 1], table[table[:, 0] == 0]
        args = (
            labelled[:, 1].astype(float),
            labelled[:, 2].astype(float),
            rest[:, 2].astype(float),
        )
        low, high = ppi_py.ppi_mean_ci(*args, alpha=0.05)
        sides.append((ppi_py.ppi_mean_pointestimate(*args)[0], (high[0] - low[0]) / (2 * z)))
    assert ppi.value == pytest.approx(sides[1][0] - sides[0][0], rel=1e-3)
    half = z * (sides[0][1] ** 2 + sides[1][1] ** 2) ** 0.5
    assert ppi.ci == pytest.approx((ppi.value - half, ppi.value + half), rel=1e-3)


def test_the_demo_comparison_shows_the_rise_was_the_judge_s(cli):
    result = cli("stages.s15_versions", "compare", "--json")
    assert result.returncode == 0, result.stderr
    biased = json.loads(result.stdout)["the two versions, biased judge"]
    assert biased["pass_rate"] > 0.3  # the judge's raw rise: 4 of 12 more passes
    people, _, ppi = biased["corrected"]
    # one person's labels serve both versions (same facts): their rate did not move
    assert people["value"] == 0.0 and people["ci"][0] < 0 < people["ci"][1]
    assert ppi["value"] == 0.0  # every case labelled: lambda 0, the people's change


@pytest.mark.golden
def test_the_lesson_quotes_the_correction_of_a_live_run(cli, report):
    readme = (STAGE / "README.md").read_text()
    numbers = readme.split("### The corrected pass rate of a run", 1)[1].split("\n#", 1)[0]
    quoted = dict(re.findall(r"^- (.+?): `(.+)`$", numbers, flags=re.MULTILINE))
    result = cli("stages.s15_versions", "correct", str(report), str(LABELS), "--json")
    shown = [
        e for e in json.loads(result.stdout)["pass_rate"]["estimates"] if e["value"] is not None
    ]
    figures = ", ".join(
        f"{e['method']} {e['value']:.3f} [{e['ci'][0]:.3f}, {e['ci'][1]:.3f}]" for e in shown
    )
    assert quoted == {"stage 8's run under the biased judge, with labels on 12 cases": figures}
    assert (
        "python -m stages.s15_versions correct reports/s08_eval.json fixtures/s08_labels.csv"
        in readme
    )


@pytest.mark.golden
def test_the_lesson_s_prose_about_stage_8_s_run_is_the_run_s(report):
    lesson = " ".join((STAGE / "README.md").read_text().split())
    people = read_labels(LABELS, LabelColumns("id", "human"), 7)
    found = correct(verdicts(json.loads(report.read_text()), "run"), people, "labels")
    assert (len(people), found.cases) == (12, 24)
    assert f"(`../../fixtures/s08_labels.csv`, {len(people)} of {found.cases}," in lesson
    scored_fails = [
        c for c, label in people.items() if label and not label.passed and c not in found.unscored
    ]
    assert (
        scored_fails == ["wrong-answer"]
        and "the one labelled case people fail (`wrong-answer`" in lesson
    )
    assert len(found.unscored) == 2 and "Two cases have no judge verdict" in lesson
    unused = [case for case in found.unscored if people.get(case) is not None]
    assert len(unused) == 1 and "the label on one of them goes unused" in lesson
    world = World()
    assert f"simulated world: {world.cases:,} cases, {world.labelled} labelled" in lesson
    assert f"misses the true rate of {world.rate}" in lesson
