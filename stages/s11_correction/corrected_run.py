"""Stage 10's run with the set's pass rate beside the agreement: judged, labelled, corrected.

The judge's pass/fail and the people's on the answers the judge scored make a `Tally`; the
four estimates (correction.py) are made from it and kept with the agreement they follow from.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from stages.s08_eval.judge import CountingJudge
from stages.s08_eval.levels import PASS_MARK
from stages.s09_calibration.calibrate import REPEATS, SEED
from stages.s09_calibration.calibration import CalCase
from stages.s09_calibration.twins import Twins
from stages.s10_agreement.agreement import HumanAgreement
from stages.s10_agreement.people import AgreedRun, calibrate_against_people
from stages.s10_agreement.rubrics import Rubric
from stages.s10_agreement.structured import Reply
from stages.s11_correction.correction import pass_rate, tally
from stages.s11_correction.estimates import Estimate


@dataclass(frozen=True)
class CorrectedAgreement(HumanAgreement):
    pass_rate: tuple[Estimate, ...]  # judge only, people only, and the two corrections


@dataclass(frozen=True)
class CorrectedRun(AgreedRun):
    """Stage 10's run, its agreement with the pass rate beside it."""

    calibration: CorrectedAgreement


def with_pass_rate(run: AgreedRun, cases: list[CalCase]) -> CorrectedRun:
    """The run, its agreement carrying the set's pass rate four ways."""
    scored = [(case, score) for case in cases if (score := run.scores[case.id]) is not None]
    judged = [score >= PASS_MARK for _, score in scored]
    rates = tuple(pass_rate(tally(judged, [case.human_pass for case, _ in scored])))
    kept = {f.name: getattr(run, f.name) for f in fields(run)}
    kept["calibration"] = CorrectedAgreement(**vars(run.calibration), pass_rate=rates)
    return CorrectedRun(**kept)


def calibrate_and_correct(
    judge: CountingJudge,
    cases: list[CalCase],
    twins: dict[str, Twins],
    *,
    repeats: int = REPEATS,
    seed: int = SEED,
    reply: Reply = Reply.BARE,
    rubric: Rubric = Rubric.OPEN,
) -> CorrectedRun:
    """Stage 10's calibration of one judge, with the set's corrected pass rate."""
    run = calibrate_against_people(
        judge, cases, twins, repeats=repeats, seed=seed, reply=reply, rubric=rubric
    )
    return with_pass_rate(run, cases)
