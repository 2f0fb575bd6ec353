"""Agreement with people: Cohen's kappa against the human pass/fail at the gate.

Found (NOT trustworthy) below 0.6; the answers judge and people disagree on become a review
queue, each with the judge's own reason when it gave one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stages.s08_eval.findings import Evidence, decide
from stages.s08_eval.levels import PASS_MARK
from stages.s09_calibration.calibration import CalCase
from stages.s09_calibration.measures import Measure, Scores, said
from stages.s10_agreement.kappa import TRUSTWORTHY, Agreement, cohen_kappa

UNDEFINED_KAPPA = "kappa is undefined: the judge and the people each used one label only"


@dataclass(frozen=True)
class Trust(Measure):
    kappa: float | None
    observed: float | None  # share of cases where judge and people say the same
    expected: float | None  # share they would agree on by chance
    trustworthy: bool | None  # None when not evaluated: neither trustworthy nor not


def trust(result: Agreement, evidence: Evidence) -> Trust:
    """Kappa against the people, read at the bar: below TRUSTWORTHY is the flaw found."""
    below = None if result.kappa is None else result.kappa < TRUSTWORTHY
    outcome = decide(evidence, below, UNDEFINED_KAPPA)
    verdict = said(outcome, "NOT trustworthy" if below else "trustworthy")
    trustworthy = None if verdict is None else not below
    return Trust(outcome, verdict, result.kappa, result.observed, result.expected, trustworthy)


@dataclass(frozen=True)
class Disagreement:
    """One answer the judge and a person judged differently at the gate, for review."""

    case: CalCase
    judge_score: float
    disagreement: str
    reason: str | None  # the judge's own words, when it gave any

    def to_json(self) -> dict[str, Any]:
        c = self.case
        asked = {"id": c.id, "question": c.question, "answer": c.answer}
        people = {"human_score": c.human_score, "human_pass": c.human_pass}
        return {
            **asked,
            **people,
            "judge_score": self.judge_score,
            "disagreement": self.disagreement,
            "reason": self.reason,
        }


PASSES, FAILS = "the judge passes what a person failed", "the judge fails what a person passed"


@dataclass(frozen=True)
class HumanAgreement(Trust):
    disagreements: int
    scored: int  # answers the judge scored
    queue: tuple[Disagreement, ...]


def agreement(cases: list[CalCase], scores: Scores, reasons: dict[str, str]) -> HumanAgreement:
    """Kappa against the human pass/fail, and the disagreements for a person to review."""
    scored = [(case, score) for case in cases if (score := scores[case.id]) is not None]
    judge_pass = [score >= PASS_MARK for _, score in scored]
    read = trust(
        cohen_kappa([case.human_pass for case, _ in scored], judge_pass),
        Evidence(len(scored), len(cases)),
    )
    queue = tuple(
        Disagreement(c, score, PASSES if passed else FAILS, reasons.get(c.id))
        for (c, score), passed in zip(scored, judge_pass, strict=True)
        if passed != c.human_pass
    )
    return HumanAgreement(**vars(read), disagreements=len(queue), scored=len(scored), queue=queue)
