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

from stages.s08_eval.detectors import load_length_pairs, load_position_pairs
from stages.s08_eval.judge import CountingJudge
from stages.s08_eval.report import build, render
from stages.s08_eval.specs import resolve
from stages.s08_eval.survey import survey

GOLDEN = Path(__file__).resolve().parent / "golden"


def report_as_the_command_builds_it(runs, spec):
    chosen, control = resolve(spec), resolve("steady")
    return build(
        list(runs.values()),
        CountingJudge(chosen.judge, chosen.name),
        CountingJudge(control.judge, control.name),
        fake=chosen.fake,
        position_pairs=load_position_pairs(),
        length_pairs=load_length_pairs(),
        survey=survey(),
    )


@pytest.mark.parametrize(
    ("spec", "name"), [("biased", "biased"), ("fakes.judges:ProseJudge", "prose")]
)
def test_the_report_is_the_reviewed_one(runs, spec, name):
    report = report_as_the_command_builds_it(runs, spec)
    assert report == json.loads((GOLDEN / f"{name}.json").read_text())


def test_the_text_report_is_the_reviewed_one(runs):
    text = render(report_as_the_command_builds_it(runs, "biased"))
    assert text + "\n" == (GOLDEN / "biased.txt").read_text()
