"""The full calibration report: stage 10's, with the set's pass rate four ways under each
side's agreement; and the lesson's simulated world, as text and as JSON.
"""

from __future__ import annotations

from typing import Any

from stages.s08_eval.findings import Finding
from stages.s09_calibration.report import Side
from stages.s10_agreement import report as agreement
from stages.s10_agreement.report import Report
from stages.s11_correction.corrected_run import CorrectedAgreement, CorrectedRun
from stages.s11_correction.estimates import heading, lines
from stages.s11_correction.simulation import LESSON_SEED, Lesson

TITLE = "Stage 11 — calibration report, corrected"
to_json = agreement.to_json  # the pass rate is a field of each side's agreement


def render_side(label: str, side: Side) -> list[str]:
    """Stage 10's lines of a side, then the set's pass rate four ways."""
    run = side.run
    assert isinstance(run, CorrectedRun), f"a run without its pass rate: {type(run).__name__}"
    return [*agreement.render_side(label, side), *pass_rate_lines(run.calibration)]


def pass_rate_lines(calibration: CorrectedAgreement) -> list[str]:
    """The set's pass rate four ways, under the agreement they follow from."""
    if calibration.state == Finding.NOT_EVALUATED:
        return []  # the agreement line already says why nothing here can be read
    return [f"  {heading('pass rate of the set')}", *lines(calibration.pass_rate, "    ")]


def render(report: Report) -> list[str]:
    return agreement.render(report, TITLE, render_side)


def lesson_lines(lesson: Lesson) -> list[str]:
    """The simulated world in words: its shape, the four estimates, and whether they are
    told apart (the judge alone misses the truth, both corrections contain it)."""
    world = lesson.world
    shape = (
        f"a simulated world (seed {LESSON_SEED}): {world.cases} cases, {world.labelled} labelled "
        f"by people; the judge's TPR {world.tpr}, TNR {world.tnr}; the true pass rate {world.rate}"
    )
    verdict = "the judge alone misses the truth; both corrections contain it"
    told = verdict if lesson.told else "NOT TOLD APART: " + verdict.replace(";", " or")
    return [shape, heading("pass rate"), *lines(lesson.estimates), told]


def lesson_json(lesson: Lesson) -> dict[str, Any]:
    return {"truth": lesson.world.rate, "estimates": [vars(e) for e in lesson.estimates]}
