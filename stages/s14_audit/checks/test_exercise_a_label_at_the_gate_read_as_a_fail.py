"""Exercise a-label-at-the-gate-read-as-a-fail (write the check): a person's verdict given as
a number is read at the gate as the judge's score is, so a person who gave exactly the gate
passed the answer.

`make exercise ID=a-label-at-the-gate-read-as-a-fail` shows the planted bug. Replace the
`pytest.skip(...)` line below with a check that passes on the code as it is and fails with the
bug planted; then run `make exercise ID=a-label-at-the-gate-read-as-a-fail` again to prove it.
"""

import pytest

# >>> main
from stages.s14_audit.audit import audit
from stages.s14_audit.rows import Columns
from stages.s14_audit.summary import summary

# <<<


def test_a_label_at_the_gate_read_as_a_fail(tmp_path):
    # >>> main
    # On every row the person gave the score the judge gave; the first is exactly the gate.
    path = tmp_path / "scores.csv"
    path.write_text(
        "score,answer,person\n"
        "7,Returns are free within 30 days.,7\n"
        "9,Your order shipped on Monday and arrives Thursday.,9\n"
        "3,We ship everywhere.,3\n"
        "5,Refunds take a while.,5\n"
    )
    columns = Columns("score", answer="answer", human="person")
    found = audit(path, columns, 7, tmp_path / "out")
    # at the gate of 7 both say pass on rows 2 and 3 (7 and 9), fail on rows 4 and 5
    assert found.table == [[2, 0], [0, 2]]  # [person][judge]: no disagreement
    calibration = summary(found, columns).calibration
    # observed 4 / 4 = 1; by chance 0.5 * 0.5 + 0.5 * 0.5 = 0.5; kappa (1 - 0.5) / 0.5 = 1
    assert calibration is not None
    assert (calibration.kappa, calibration.disagreements) == (1.0, 0)
    assert found.out.review.read_text() == ""  # nothing for a person to review
    return
    # <<<
    pytest.skip(
        "exercise a-label-at-the-gate-read-as-a-fail: write this check, then run "
        "`make exercise ID=a-label-at-the-gate-read-as-a-fail`"
    )
