"""No verdict without data: every measure ends found, not found, or not evaluated.

A detector that had nothing to look at has not found "no bias"; it has not looked. Enough
data is at least MIN_USABLE usable items *and* at least MIN_SHARE of the items the measure
set out to use: a judge that answered 2 of 48 questions has not been measured, because the
replies a judge could not give are rarely a random sample.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from stages.s01_model.model import Name

MIN_USABLE = 2  # one item has no spread: an interval around it has zero width
MIN_SHARE = 0.5  # at least half of what the measure set out to use


class Finding(Name):
    FOUND = "found"  # the data show the flaw
    NOT_FOUND = "not_found"  # the data are enough, and do not show it
    NOT_EVALUATED = "not_evaluated"  # too little usable data to say either


@dataclass(frozen=True)
class Evidence:
    """What a measure stood on: `usable` of the `total` items it set out to use."""

    usable: int
    total: int

    @property
    def unscored(self) -> int:
        """The items it could not use: the judge gave nothing usable, or the row was bad."""
        return self.total - self.usable

    def shortfall(self) -> str | None:
        """Why these data are too few to conclude from; None when they are enough."""
        if self.total == 0:
            return "nothing to measure"
        if self.usable < MIN_USABLE or self.usable < MIN_SHARE * self.total:
            needs = f"needs at least {MIN_USABLE} and {MIN_SHARE:.0%}"
            return f"too little usable data: {self.counts()} ({needs})"
        return None

    def counts(self) -> str:
        return f"{self.usable} usable of {self.total}, {self.unscored} unscored"


@dataclass(frozen=True)
class Outcome:
    """A measure's state, why it is not evaluated (or ""), and what it stood on."""

    state: Finding
    reason: str
    evidence: Evidence

    def fields(self) -> dict[str, Any]:
        """The keys every measure carries in a report's JSON: its state, why, and its counts."""
        counts = {**asdict(self.evidence), "unscored": self.evidence.unscored}
        return {"state": str(self.state), "reason": self.reason, **counts}


def decide(evidence: Evidence, found: bool | None, undefined: str = "undefined") -> Outcome:
    """The state a measure ends in: not evaluated on too little data, or when its figure is
    not defined on these data (`found` None, and `undefined` says why); else found or not."""
    short = evidence.shortfall()
    if short is not None:
        return Outcome(Finding.NOT_EVALUATED, short, evidence)
    if found is None:
        return Outcome(Finding.NOT_EVALUATED, f"{undefined} ({evidence.counts()})", evidence)
    return Outcome(Finding.FOUND if found else Finding.NOT_FOUND, "", evidence)
