"""Exercise a-refusal-counted-as-covering-the-truth (write the check): an estimate that gave no
number has no interval, so it never counts as one that contains the truth.

`make exercise ID=a-refusal-counted-as-covering-the-truth` shows the planted bug. Replace the
`pytest.skip(...)` line below with a check that passes on the code as it is and fails with the
bug planted; then run `make exercise ID=a-refusal-counted-as-covering-the-truth` again to
prove it.
"""

import pytest

# >>> main
from stages.s11_correction.correction import pass_rate
from stages.s11_correction.estimates import not_evaluated
from stages.s11_correction.simulation import World, coverage, covers, lesson, simulate

# <<<


def test_a_refusal_counted_as_covering_the_truth():
    # >>> main
    assert not covers(not_evaluated("Rogan-Gladen", "no human labels"), World().rate)
    # nobody labelled a case: the judge alone misses the truth and no correction is made,
    # so nothing has been told apart
    nobody = lesson(World(labelled=0))
    assert not any(estimate.evaluated for estimate in nobody.estimates[1:])
    assert nobody.told is False
    # thirty labels: Rogan-Gladen refuses on most draws, and its coverage can be no higher
    # than the share of draws on which it gave an interval at all
    world, seeds = World(labelled=30), range(40)
    given = sum(pass_rate(simulate(world, seed), seed)[2].evaluated for seed in seeds)
    assert given < len(seeds) / 2
    assert coverage(world, seeds)["Rogan-Gladen"] <= given / len(seeds)
    return
    # <<<
    pytest.skip(
        "exercise a-refusal-counted-as-covering-the-truth: write this check, then run "
        "`make exercise ID=a-refusal-counted-as-covering-the-truth`"
    )
