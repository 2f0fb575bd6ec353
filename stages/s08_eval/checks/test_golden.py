"""The whole report, held to reviewed copies of it: every key, state, reason and line.

The files in golden/ are the output of the command line, read and checked by a person when
they were made. A change that alters the report shows up here as a diff to review. When the
change is intended, make the files again and review the diff before committing:

    python -m stages.s08_eval --json | python -m json.tool --sort-keys > GOLDEN/biased.json
    python -m stages.s08_eval > GOLDEN/biased.txt
    python -m stages.s08_eval --judge fakes.judges:ProseJudge --json \\
        | python -m json.tool --sort-keys > GOLDEN/prose.json

(GOLDEN is stages/s08_eval/checks/golden.)
"""

import json
from pathlib import Path

import pytest

from stages.s08_eval.render import render
from stages.s08_eval.report import evaluation
from stages.s08_eval.specs import resolve

GOLDEN = Path(__file__).resolve().parent / "golden"


def report_as_the_command_builds_it(runs, spec):
    return evaluation(list(runs.values()), resolve(spec), resolve("steady"))


@pytest.mark.parametrize(
    ("spec", "name"), [("biased", "biased"), ("fakes.judges:ProseJudge", "prose")]
)
@pytest.mark.golden
def test_the_report_is_the_reviewed_one(runs, spec, name):
    report = report_as_the_command_builds_it(runs, spec)
    assert report.to_json() == json.loads((GOLDEN / f"{name}.json").read_text())


@pytest.mark.golden
def test_the_text_report_is_the_reviewed_one(runs):
    text = render(report_as_the_command_builds_it(runs, "biased"))
    assert text + "\n" == (GOLDEN / "biased.txt").read_text()
