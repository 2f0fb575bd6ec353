"""The corrected change between two versions: each corrected on its own labels, then subtracted.

A judge that rewards length errs more on the verbose version: it passes more of the answers
people fail there. So each version keeps its own TPR and TNR, measured on labels of its own
answers (where both versions say the same facts, as here, one person's label of a case
serves both). Three differences, after minus before, each with a 95% interval:

    people only          the change in the people's rate; a normal interval.
    Rogan-Gladen         the change in the corrected rate; each version's bootstrap drawn
                         as in stage 9, the interval from the differences of the replicates.
    prediction-powered   the change in PPI++; the two standard errors combined.

The two versions are resampled as if independent, though they share their cases: where
their verdicts move together, as on shared cases they do, the interval is wider than a paired
one would be. A difference is not evaluated when either side's estimate is not, with that
side's reason.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from stages.s01_model.cli import FIXTURES
from stages.s09_calibration.stats import RESAMPLES, percentile_interval
from stages.s11_correction.correction import SEED, Tally, pass_rate, replicates
from stages.s11_correction.estimates import Estimate, bounded, not_evaluated, z_value
from stages.s15_versions.corrected import correct, verdicts
from stages.s15_versions.versions import Comparison, compare, pairs

CHANGE = (-1.0, 1.0)  # the bounds of a change in a rate
DEMO_LABELS = FIXTURES / "versions_labels.csv"  # a person's verdict on each demo case


def differences(before: Tally, after: Tally, seed: int = SEED) -> list[Estimate]:
    """People only, Rogan-Gladen and prediction-powered: after minus before."""
    first, second = pass_rate(before, seed), pass_rate(after, seed)
    return [
        _normal_change(first[1], second[1], people_error(before), people_error(after)),
        _corrected_change(before, after, first[2], second[2], seed),
        _normal_change(first[3], second[3], first[3].error, second[3].error),
    ]


def people_error(t: Tally) -> float | None:
    """The standard error of the people's rate (a normal approximation); None without labels."""
    if not t.labelled:
        return None
    share = sum(t.table[1]) / t.labelled
    return float((share * (1 - share) / t.labelled) ** 0.5)


def _refused(method: str, before: Estimate, after: Estimate) -> Estimate | None:
    for side, e in (("before", before), ("after", after)):
        if not e.evaluated:
            return not_evaluated(method, f"{side}: {e.reason}")
    return None


def _normal_change(
    before: Estimate, after: Estimate, first: float | None, second: float | None
) -> Estimate:
    refused = _refused(before.method, before, after)
    if refused is not None:
        return refused
    assert before.value is not None and after.value is not None
    if first is None or second is None:  # n/a is not a zero error
        return not_evaluated(before.method, "a side's standard error is not known")
    error = (first**2 + second**2) ** 0.5
    if error == 0:
        return not_evaluated(before.method, "neither side varies: an interval of zero width")
    return bounded(before.method, after.value - before.value, error * z_value(), CHANGE, "")


def _corrected_change(
    before: Tally, after: Tally, first: Estimate, second: Estimate, seed: int
) -> Estimate:
    method = first.method
    refused = _refused(method, first, second)
    if refused is not None:
        return refused
    assert first.value is not None and second.value is not None
    rng = np.random.default_rng(seed)
    (a, lost_a), (b, lost_b) = replicates(before, rng, RESAMPLES), replicates(after, rng, RESAMPLES)
    if lost_a or lost_b:
        return not_evaluated(method, f"{lost_a + lost_b} resamples had no correction")
    change = np.clip(b, 0.0, 1.0) - np.clip(a, 0.0, 1.0)
    note = f"{RESAMPLES} resamples of each version (seed {seed})"
    return Estimate(method, second.value - first.value, percentile_interval(change), note=note)


def compared(where: str, before: Any, after: Any, people: list[Any]) -> Comparison:
    """The comparison, and the corrected change when there are labels (one file serves both
    versions, or the first serves `before` and the second `after`)."""
    found = compare(pairs(before, after, where))
    if not people:
        return found
    first, second = people[0], people[-1]
    a = correct(verdicts(before, where), first, where).rates
    b = correct(verdicts(after, where), second, where).rates
    return replace(found, corrected=tuple(differences(a, b)))
