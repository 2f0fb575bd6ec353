"""A seeded world where the true pass rate is known, to show that a correction works.

Each case truly passes with probability `rate`. The judge passes a true pass with
probability `tpr` and a true fail with probability 1 - `tnr`: with TPR 0.93 and TNR 0.62 it
over-passes, as a lenient judge does. People label a random `labelled` of the cases, and
label them right. Over many seeds, a 95% interval should contain `rate` about 95% of the
time: the judge-only interval almost never does; the corrected ones should.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from stages.s11_correction.correction import Tally, pass_rate
from stages.s11_correction.estimates import Estimate

LESSON_SEED = 10  # the draw the lesson shows; any other seed differs in the digits


@dataclass(frozen=True)
class World:
    """The shape of a simulated evaluation; the defaults are the lesson's."""

    cases: int = 4000
    labelled: int = 600  # how many cases a person labels
    rate: float = 0.714  # the true pass rate
    tpr: float = 0.93  # the judge's chance of passing a case that truly passes
    tnr: float = 0.62  # ... and of failing a case that truly fails


def simulate(world: World, seed: int) -> Tally:
    """One seeded draw of the world, as counts."""
    rng = np.random.default_rng(seed)
    truth = rng.random(world.cases) < world.rate
    judge = np.where(
        truth, rng.random(world.cases) < world.tpr, rng.random(world.cases) >= world.tnr
    )
    chosen = np.zeros(world.cases, dtype=bool)
    chosen[rng.choice(world.cases, size=world.labelled, replace=False)] = True
    h, j = truth[chosen], judge[chosen]
    table = (
        (int(np.sum(~h & ~j)), int(np.sum(~h & j))),
        (int(np.sum(h & ~j)), int(np.sum(h & j))),
    )
    return Tally(table, int(np.sum(judge[~chosen])), int(np.sum(~chosen)))


def covers(estimate: Estimate, truth: float) -> bool:
    """Whether an evaluated estimate's interval contains the truth (not evaluated: no)."""
    return estimate.ci is not None and estimate.ci[0] <= truth <= estimate.ci[1]


def coverage(world: World, seeds: range, resamples: int = 2000) -> dict[str, float]:
    """The share of seeds whose interval contains the true rate, by method."""
    hits: dict[str, int] = {}
    for seed in seeds:
        for estimate in pass_rate(simulate(world, seed), seed, resamples):
            hits[estimate.method] = hits.get(estimate.method, 0) + covers(estimate, world.rate)
    return {method: count / len(seeds) for method, count in hits.items()}


@dataclass(frozen=True)
class Lesson:
    """The world the lesson shows, its four estimates, and whether they are told apart."""

    world: World
    estimates: list[Estimate]
    told: bool  # the judge alone misses the truth, and both corrections contain it


def lesson(world: World | None = None, seed: int = LESSON_SEED) -> Lesson:
    world = World() if world is None else world
    estimates = pass_rate(simulate(world, seed))
    corrections = estimates[2:]
    told = not covers(estimates[0], world.rate) and all(covers(e, world.rate) for e in corrections)
    return Lesson(world, estimates, told)
