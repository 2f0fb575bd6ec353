"""Exercise lost-repeat-averaged-as-zero (write the check): a text's score is the mean of the
replies the judge gave; a repeat it did not answer is counted as unscored, never as a 0.

`make exercise ID=lost-repeat-averaged-as-zero` shows the planted bug. Replace the
`pytest.skip(...)` line below with a check that passes on the code as it is and fails with the
bug planted; then run `make exercise ID=lost-repeat-averaged-as-zero` again to prove it.
"""

import pytest

# >>> main
from stages.s08_eval.judge import CountingJudge
from stages.s08_eval.levels import PASS_MARK
from stages.s09_calibration.calibrate import Asking, Scorer
from stages.s09_calibration.calibration import load_calibration


class AnswersTwoOfThree:
    """Scores 9, times out, then scores 6."""

    def __init__(self):
        self.replies = iter(["9", None, "6"])

    def score(self, task, answer, reference):
        reply = next(self.replies)
        if reply is None:
            raise TimeoutError("no reply within 30 s")
        return reply

    def compare(self, task, first, second):
        raise AssertionError("only scores are asked here")


# <<<


def test_lost_repeat_averaged_as_zero():
    # >>> main
    case = load_calibration()[0]
    judge = CountingJudge(AnswersTwoOfThree(), "two-of-three")
    scorer = Scorer(judge, repeats=3, asking=Asking())
    mean = scorer.mean_score(case, case.answer)
    # the two replies given: (9 + 6) / 2 = 7.5, a pass at the gate of 7. The lost one read
    # as a 0 would give (9 + 0 + 6) / 3 = 5.0: a fail that the outage made, not the answer.
    assert mean == 7.5 and mean >= PASS_MARK
    assert [reading.reason for reading in scorer.unscored] == [
        "judge unavailable: TimeoutError: no reply within 30 s"
    ]
    assert judge.calls == 3
    return
    # <<<
    pytest.skip(
        "exercise lost-repeat-averaged-as-zero: write this check, then run "
        "`make exercise ID=lost-repeat-averaged-as-zero`"
    )
