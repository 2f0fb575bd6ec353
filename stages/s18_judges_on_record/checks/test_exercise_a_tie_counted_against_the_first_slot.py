"""Exercise a-tie-counted-against-the-first-slot (write the check): a tie is a verdict of its
own (stage 8), a vote for neither slot, so the first-slot share and the sign test count only
the verdicts that chose an output.

`make exercise ID=a-tie-counted-against-the-first-slot` shows the planted bug. Replace the
`pytest.skip(...)` line below with a check that passes on the code as it is and fails with the
bug planted; then run `make exercise ID=a-tie-counted-against-the-first-slot` again to prove it.
"""

import pytest

# >>> main
from stages.s18_judges_on_record.measures import ONE, TIE, TWO, Judged, first_slot

# <<<


def test_a_tie_counted_against_the_first_slot():
    # >>> main
    import numpy as np

    # 40 pairs, labelled 1 and 2 in turn. The judge reads content alone: right in both orders
    # on 30, a tie in both orders on the 10 hardest. It has no slot: its 60 verdicts that
    # chose an output split 30 for the first slot and 30 for the second (each pair is shown
    # both ways), and no pair went to the same slot twice.
    label = np.array([ONE, TWO] * 20)
    said = np.where(np.arange(40) < 10, TIE, label)
    found = first_slot(Judged(said, said, label, np.full(40, TIE)))
    assert (found.state, found.share) == ("not_found", 0.5)
    assert (found.first_both, found.second_both, found.p) == (0, 0, None)
    return
    # <<<
    pytest.skip(
        "exercise a-tie-counted-against-the-first-slot: write this check, then run "
        "`make exercise ID=a-tie-counted-against-the-first-slot`"
    )
