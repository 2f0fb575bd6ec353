"""The lesson's numbers, compared with a live run."""

import re
from pathlib import Path

import pytest

from fakes.judges import BiasedJudge, FamilyJudge
from stages.s08_eval.findings import MIN_SHARE, MIN_USABLE
from stages.s08_eval.judge import CountingJudge
from stages.s09_calibration.calibrate import calibrate
from stages.s09_calibration.calibration import families, load_calibration
from stages.s09_calibration.report import interval as _interval
from stages.s09_calibration.report import number as _number
from stages.s09_calibration.twins import load_twins

STAGE = Path(__file__).resolve().parents[1]


def quoted(stage: Path) -> dict[str, str]:
    """The lines of a lesson's "Numbers from a run": `- what: `figure``."""
    readme = (stage / "README.md").read_text(encoding="utf-8")
    numbers = readme.split("### Numbers from a run", 1)[1].split("\n#", 1)[0]
    return dict(re.findall(r"^- (.+?): `(.+)`$", numbers, flags=re.MULTILINE))


@pytest.mark.golden
def test_the_lesson_quotes_the_numbers_of_a_live_run():
    cases = load_calibration()
    twins = load_twins(cases)
    biased = calibrate(CountingJudge(BiasedJudge(), "biased"), cases, twins)
    family = calibrate(CountingJudge(FamilyJudge(), "family"), cases, twins)
    verbosity, selfpref = biased.verbosity, family.self_preference
    live = {
        "calibration cases": f"{len(cases)}, {len(families(cases))} pairs",
        "biased verbosity": f"mean delta {_number(verbosity.mean_delta)} "
        f"{_interval(verbosity.ci)}, {verbosity.flips} of {verbosity.n} flip — "
        f"{verbosity.verdict}",
        "biased pairwise swap consistency": _number(biased.pairwise.swap_consistency),
        "family judge self-preference gap": f"{_number(selfpref.gap)} {_interval(selfpref.ci)}",
        "judge calls per report, each side": str(biased.judge.calls),
    }
    assert quoted(STAGE) == live


def test_the_lesson_quotes_the_minimum_the_code_uses():
    lesson = " ".join((STAGE / "README.md").read_text(encoding="utf-8").split())
    assert f"at least {MIN_USABLE} usable items and at least {MIN_SHARE:.0%} of those" in lesson
