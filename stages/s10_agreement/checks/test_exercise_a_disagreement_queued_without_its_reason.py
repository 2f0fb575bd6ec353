"""Exercise a-disagreement-queued-without-its-reason (write the check): each answer in the
review queue carries the reason the judge gave for that answer, whenever it gave one.

`make exercise ID=a-disagreement-queued-without-its-reason` shows the planted bug. Replace the
`pytest.skip(...)` line below with a check that passes on the code as it is and fails with the
bug planted; then run `make exercise ID=a-disagreement-queued-without-its-reason` again to
prove it.
"""

import pytest

# >>> main
from fakes.judges import SteadyJudge
from stages.s08_eval.judge import CountingJudge
from stages.s09_calibration.calibration import load_calibration
from stages.s09_calibration.twins import load_twins
from stages.s10_agreement.people import calibrate_against_people
from stages.s10_agreement.structured import Reply


class SaysWhy:
    """Scores as the steady judge does, in JSON, with a reason that names the answer it read
    by its length."""

    def score(self, task, answer, reference):
        value = int(SteadyJudge().score(task, answer, reference))
        return f'{{"score": {value}, "reason": "{value} for {len(answer)} characters"}}'

    def compare(self, task, first, second):
        return SteadyJudge().compare(task, first, second)


# <<<


def test_a_disagreement_queued_without_its_reason():
    # >>> main
    cases = load_calibration()
    judge = CountingJudge(SaysWhy(), "says-why")
    run = calibrate_against_people(judge, cases, load_twins(cases), reply=Reply.JSON)
    queue = run.calibration.queue
    assert queue, "the steady judge disagrees with people on some answers"
    for entry in queue:
        # the judge's own words on this answer, not another's, and not lost on the way
        said = f"{int(entry.judge_score)} for {len(entry.case.answer)} characters"
        assert entry.reason == said, entry.case.id
        assert entry.to_json()["reason"] == said, entry.case.id
    return
    # <<<
    pytest.skip(
        "exercise a-disagreement-queued-without-its-reason: write this check, then run "
        "`make exercise ID=a-disagreement-queued-without-its-reason`"
    )
