"""Stage 9's report with people beside it: the length confound, the agreement, the rubric change.

The same report, extended: each side's run carries the two measures people's labels make
possible, and the report the rubric change. Nothing here computes; the records hold it all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stages.s08_eval.findings import Finding
from stages.s09_calibration import report as calibration
from stages.s09_calibration.report import Side, interval, line, number
from stages.s10_agreement.agreement import HumanAgreement
from stages.s10_agreement.correlation import LengthConfound
from stages.s10_agreement.people import AgreedRun
from stages.s10_agreement.rubric_change import RubricChange

TITLE = "Stage 10 — calibration report, against people"


@dataclass(frozen=True)
class Report(calibration.Report):
    rubric_change: RubricChange
    simulated: bool  # a fake judge, built to obey the checklist rubric

    @property
    def not_successful(self) -> list[str]:
        """Stage 9's reasons, and a rubric change that could not be compared."""
        found = super().not_successful
        if self.rubric_change.state == Finding.NOT_EVALUATED:
            found.append(f"rubric change not evaluated: {self.rubric_change.outcome.reason}")
        return found


def to_json(report: Report) -> dict[str, Any]:
    """Stage 9's JSON object, with the rubric change beside the two sides."""
    return {**calibration.to_json(report), "rubric_change": report.rubric_change.to_json()}


def run_of(side: Side) -> AgreedRun:
    assert isinstance(side.run, AgreedRun), f"a run without people: {type(side.run).__name__}"
    return side.run


def render_side(label: str, side: Side) -> list[str]:
    """Stage 9's lines of a side, then the length confound and the agreement with people."""
    run = run_of(side)
    confound, agreed = run.length_confound, run.calibration
    return [
        *calibration.render_side(label, side),
        line("length confound", confound, confound_figures(confound)),
        line("agreement with people", agreed, agreement_figures(agreed)),
    ]


def confound_figures(m: LengthConfound) -> str:
    return f"spearman {number(m.spearman)} {interval(m.ci)}, pearson {number(m.pearson)}"


def agreement_figures(m: HumanAgreement) -> str:
    return (
        f"kappa {number(m.kappa)} (observed {number(m.observed)}, by chance "
        f"{number(m.expected)}); {m.disagreements} disagreements to review"
    )


def rubric_lines(report: Report) -> list[str]:
    """The rubric change: the judge's verbosity and kappa under both rubrics."""
    change, judge = report.rubric_change, report.judge
    before, after = change.open, change.facts
    lines = [
        f"rubric change for {judge.run.judge.name}: open-ended -> required-facts checklist "
        f"({after.calls} more calls, {judge.calls_in_all} in all)"
    ]
    if report.simulated:
        lines.append("  simulated: the fake judge obeys this rubric; a real model measures the fix")
    figures = (
        f"mean delta {number(before.verbosity_mean_delta)} -> {number(after.verbosity_mean_delta)}"
        f" ({before.verbosity_verdict} -> {after.verbosity_verdict}), flips {before.flips} -> "
        f"{after.flips}, kappa {number(before.kappa)} -> {number(after.kappa)}"
    )
    return [*lines, line("verbosity and kappa", change, figures)]


def render(
    report: Report, title: str = TITLE, side: calibration.SideLines = render_side
) -> list[str]:
    return [*calibration.render(report, title, side), "", *rubric_lines(report)]
