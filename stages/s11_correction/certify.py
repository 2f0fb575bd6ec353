"""The gate certifies on the interval, not on the point: a figure measured on few labels could
lie anywhere in its interval, so each rule read from people's labels holds the whole
interval to its bar.

    passed             the lower bound is at or above the bar
    failed             the upper bound is below the bar: more labels would not rescue it
    not enough labels  the interval straddles the bar: these labels cannot tell a judge that
                       clears it from one that does not, so the rule fails as not evaluated,
                       naming how many labels it had

Three rules read the labels: kappa (its bootstrap interval, stage 10's), the judge's
true-positive rate (of the answers people passed, the share it passed) and its true-negative
rate (of those they failed, the share it failed), each with Wilson's interval. Stage 10's two
rules read from the twins, the verbosity shift and the flip rate, are kept as they were.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from stages.s01_model.model import Name
from stages.s08_eval.findings import Finding
from stages.s08_eval.levels import PASS_MARK
from stages.s09_calibration.calibrate import Run
from stages.s09_calibration.stats import Interval
from stages.s10_agreement.agreement import Trust
from stages.s10_agreement.gate import KAPPA, Rule, Thresholds, load_gate, twin_rules
from stages.s10_agreement.kappa import kappa_interval
from stages.s10_agreement.people import AgreedRun
from stages.s11_correction.estimates import wilson

GATE_FILE = Path(__file__).resolve().parent / "gate.toml"
TPR, TNR = "true-positive rate against people", "true-negative rate against people"
Labels = list[tuple[bool, bool]]  # (the person's pass, the judge's), one an answer scored


@dataclass(frozen=True)
class Certified(Thresholds):
    """Stage 10's thresholds, with the bars of the two rates; each bar is a lower bound's."""

    min_true_positive: float
    min_true_negative: float
    # how close another judge must be shown to this one to stand in for it (a later gate's)
    equivalent_agreement: float = 0.1  # the share of answers it agrees with people on
    equivalent_verbosity: float = 0.5  # the points a padded twin gains


def load_limits(path: Path = GATE_FILE) -> Certified:
    """The five thresholds; an error names the file and the setting (stage 10's reading)."""
    limits = load_gate(path, Certified)
    assert isinstance(limits, Certified)
    return limits


class Bound(Name):
    PASSED = "passed"
    FAILED = "failed"
    SHORT = "not enough labels"


def read_bound(ci: Interval, bar: float) -> Bound:
    """Where the whole interval lies against the bar."""
    if ci[0] >= bar:
        return Bound.PASSED
    return Bound.FAILED if ci[1] < bar else Bound.SHORT


def labels(run: Run) -> Labels:
    """(the person's pass, the judge's) for each answer the judge scored."""
    series = zip(run.series.original, run.series.human_pass, strict=True)
    return [(person, score >= PASS_MARK) for (_, score), person in series if score is not None]


def alike(labelled: Labels, side: bool) -> list[bool]:
    """Of the answers people passed (`side` True) or failed, whether the judge said the same:
    its true-positive or true-negative rate is their share."""
    return [judge == side for person, judge in labelled if person == side]


def certify(name: str, point: float, ci: Interval | None, bar: float, labelled: int) -> Rule:
    """One rule read on its interval: passed, failed, or not enough labels."""
    limit = f"lower bound at least {bar:.2f}"
    if ci is None:
        return Rule(name, f"not evaluated (no interval from {labelled} labels)", limit, False)
    shown = f"{point:.2f} [{ci[0]:.2f}, {ci[1]:.2f}] from {labelled} labels"
    bound = read_bound(ci, bar)
    if bound == Bound.SHORT:
        shown = f"not evaluated (not enough labels: {shown} straddles {bar:.2f})"
    return Rule(name, shown, limit, bound == Bound.PASSED)


def people_rules(calibration: Trust, labelled: Labels, limits: Certified) -> list[Rule]:
    """Kappa and the two rates, each certified on its interval."""
    bars = {KAPPA: limits.min_kappa, TPR: limits.min_true_positive, TNR: limits.min_true_negative}
    if calibration.state == Finding.NOT_EVALUATED or calibration.kappa is None:
        why = f"not evaluated ({calibration.outcome.reason})"
        return [
            Rule(name, why, f"lower bound at least {bar:.2f}", False) for name, bar in bars.items()
        ]
    ci = kappa_interval([person for person, _ in labelled], [judge for _, judge in labelled])
    rules = [certify(KAPPA, calibration.kappa, ci, bars[KAPPA], len(labelled))]
    for name, side in ((TPR, True), (TNR, False)):
        hits = alike(labelled, side)
        ci = wilson(sum(hits), len(hits)) if hits else None
        rules.append(certify(name, sum(hits) / max(1, len(hits)), ci, bars[name], len(hits)))
    return rules


def judge_gate(run: AgreedRun, limits: Certified) -> list[Rule]:
    """The gate's five rules over one calibration run: stage 10's two from the twins, then
    the three certified on people's labels."""
    return twin_rules(run.verbosity, limits) + people_rules(run.calibration, labels(run), limits)
