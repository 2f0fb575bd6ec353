"""Stage 9's run, measured against people: the length confound and the agreement at the gate.

Both are made from the scores stage 9 already took, so no question is asked twice: the
lengths and scores of every answer and its padded twin for the confound, each answer's score
and the judge's reasons for the agreement and its review queue.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import partial

from stages.s08_eval.findings import Evidence
from stages.s08_eval.judge import CountingJudge
from stages.s09_calibration.calibrate import REPEATS, SEED, Asking, Run, calibrate
from stages.s09_calibration.calibration import CalCase
from stages.s09_calibration.twins import Twins
from stages.s10_agreement.agreement import HumanAgreement, agreement
from stages.s10_agreement.correlation import LengthConfound, length_confound
from stages.s10_agreement.rubrics import Rubric, prompt
from stages.s10_agreement.structured import Reply, json_reason


@dataclass(frozen=True)
class AgreedRun(Run):
    """A calibration run with what people's labels add to it."""

    length_confound: LengthConfound
    calibration: HumanAgreement


def asking(reply: Reply = Reply.BARE, rubric: Rubric = Rubric.OPEN) -> Asking:
    """Stage 9's way of asking, with this stage's rubric and reply form."""
    return Asking(str(reply), partial(prompt, rubric), reply.parse, reply.hint)


def confound(run: Run) -> LengthConfound:
    """Spearman's rho of score with length, over every answer and padded twin scored."""
    points = [(float(n), s) for n, s in run.series.original + run.series.padded if s is not None]
    seen = Evidence(len(points), len(run.series.original) + len(run.series.padded))
    return length_confound([p[0] for p in points], [p[1] for p in points], seen)


def with_people(run: Run, cases: list[CalCase]) -> AgreedRun:
    """The run, with the length confound and the agreement with people added."""
    kept = {f.name: getattr(run, f.name) for f in fields(run)}
    reasons = {i: why for i, raw in run.replies.items() if (why := json_reason(raw)) is not None}
    return AgreedRun(
        **kept,
        length_confound=confound(run),
        calibration=agreement(cases, run.scores, reasons),
    )


def calibrate_against_people(
    judge: CountingJudge,
    cases: list[CalCase],
    twins: dict[str, Twins],
    *,
    repeats: int = REPEATS,
    seed: int = SEED,
    reply: Reply = Reply.BARE,
    rubric: Rubric = Rubric.OPEN,
) -> AgreedRun:
    """Stage 9's calibration of one judge, then the measures people's labels make possible."""
    run = calibrate(judge, cases, twins, repeats=repeats, seed=seed, asking=asking(reply, rubric))
    return with_people(run, cases)
