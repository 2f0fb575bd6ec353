"""Exercise the-pool-dealt-into-halves (write the check): the permutation test deals the
pooled scores into two windows of the sizes the real ones had, so a small window is set
against the spread a window that small has by chance.

`make exercise ID=the-pool-dealt-into-halves` shows the planted bug. Replace the
`pytest.skip(...)` line below with a check that passes on the code as it is and fails with the
bug planted; then run `make exercise ID=the-pool-dealt-into-halves` again to prove it.
"""

import pytest

# >>> main
from stages.s17_windows.psi import MAJOR, by_chance, psi
from stages.s17_windows.windows import Window, bins, shift

# <<<


def test_the_pool_dealt_into_halves():
    # >>> main
    import random

    from scipy.stats import permutation_test

    # The mirrored half with windows of unequal size: a busy week of 200 scores and a quiet
    # one of 10, both drawn alike (each score the passes of 8 tries at 0.6, from 0 to 8).
    def weeks(seed):
        rng = random.Random(seed)
        draw = [float(sum(rng.random() < 0.6 for _ in range(8))) for _ in range(210)]
        return Window("busy", tuple(draw[:200]), 0), Window("quiet", tuple(draw[200:]), 0)

    busy, quiet = weeks(0)
    edges = bins([busy, quiet])
    theirs = permutation_test(
        (busy.scores, quiet.scores), lambda a, b: psi(a, b, edges),
        permutation_type="independent", n_resamples=2000, alternative="greater", random_state=4,
    ).pvalue  # fmt: skip
    # scipy deals windows of 200 and 10, the sizes observed; two seeded runs of 2000 deals
    # agree to resampling noise (sd about 0.01 for a p-value near 0.7)
    assert by_chance(busy.scores, quiet.scores, edges) == pytest.approx(theirs, abs=0.04)
    found = major = 0
    for seed in range(40):
        busy, quiet = weeks(seed)
        measured = shift(busy, quiet, bins([busy, quiet]))
        found += measured.state == "found"
        major += (measured.psi or 0) > MAJOR
    assert major >= 10  # ten scores spread far by chance: the index often reads "major"
    assert found <= 4  # the test at 5% allows about 2 of 40; 4 leaves room for the draw
    return
    # <<<
    pytest.skip(
        "exercise the-pool-dealt-into-halves: write this check, then run "
        "`make exercise ID=the-pool-dealt-into-halves`"
    )
