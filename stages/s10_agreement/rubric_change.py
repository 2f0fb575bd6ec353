"""The rubric change, measured: the same judge under the open rubric and the facts checklist.

Changing the rubric is the cheapest fix to try, and whether it worked is measured, not
assumed: the verbosity shift and the agreement with people, before and after. With the
course's fakes the "after" is a simulation (the biased fake is built to obey the checklist);
only a real model shows whether the fix works.
"""

from __future__ import annotations

from dataclasses import dataclass

from stages.s08_eval.findings import Evidence, Finding, Outcome
from stages.s09_calibration.measures import Measure, said
from stages.s09_calibration.stats import Interval
from stages.s10_agreement.people import AgreedRun


@dataclass(frozen=True)
class Headline:
    """What the rubric change compares, of one run."""

    verbosity_mean_delta: float | None
    verbosity_ci: Interval | None
    verbosity_state: Finding
    verbosity_verdict: str | None
    flips: int
    kappa: float | None
    kappa_state: Finding
    calls: int


def headline(run: AgreedRun) -> Headline:
    v, kappa = run.verbosity, run.calibration
    shift = (v.mean_delta, v.ci, v.state, v.verdict, v.flips)
    return Headline(*shift, kappa.kappa, kappa.state, run.judge.calls)


@dataclass(frozen=True)
class RubricChange(Measure):
    open: Headline  # under the open-ended rubric
    facts: Headline  # under the required-facts checklist


def rubric_change(open_run: AgreedRun, facts_run: AgreedRun) -> RubricChange:
    """The same measurements before (open rubric) and after (facts checklist) the change.

    Found when the change moved a verdict (of verbosity or of agreement with people); not
    evaluated when either is not evaluated on either side.
    """
    before, after = headline(open_run), headline(facts_run)
    states = [(h.verbosity_state, h.kappa_state) for h in (before, after)]
    # what it stands on: four verdicts, two measures before and after the change
    usable = sum(state != Finding.NOT_EVALUATED for pair in states for state in pair)
    moved = states[0] != states[1]
    evidence = Evidence(usable, 4)
    outcome = Outcome(Finding.FOUND if moved else Finding.NOT_FOUND, "", evidence)
    if usable < 4:
        why = f"a verdict it compares is not evaluated ({evidence.counts()})"
        outcome = Outcome(Finding.NOT_EVALUATED, why, evidence)
    verdict = "the change moved a verdict" if moved else "no verdict moved"
    return RubricChange(outcome, said(outcome, verdict), before, after)
