"""Exercise flakiness-compares-only-the-tally (write the check): the flakiness check holds each
case's second verdict to its first, so a judge that swaps its verdicts between two cases fails
it, although it passes as many cases the second time as the first.

`make exercise ID=flakiness-compares-only-the-tally` shows the planted bug. Replace the
`pytest.skip(...)` line below with a check that passes on the code as it is and fails with the
bug planted; then run `make exercise ID=flakiness-compares-only-the-tally` again to prove it.
"""

import pytest

# >>> main
from fakes.judges import SteadyJudge
from stages.s08_eval.cases import load_cases, run_case
from stages.s08_eval.report import evaluation
from stages.s08_eval.specs import JudgeChoice


class SwapsItsVerdicts:
    """Scores the first answer it is shown 9 and the second 3; shown each again, the reverse."""

    def __init__(self):
        self.looks = {}  # answer -> times scored so far, in the order the answers came

    def score(self, task, answer, reference):
        first_seen = list(self.looks).index(answer) if answer in self.looks else len(self.looks)
        look = self.looks.get(answer, 0)
        self.looks[answer] = look + 1
        return "9" if (first_seen + look) % 2 == 0 else "3"

    def compare(self, task, first, second):
        return "tie"


def flakiness(judge):
    cases = {case.id: case for case in load_cases()}
    runs = [run_case(cases[case_id]) for case_id in ("where-a1001", "refund-timing")]
    # fake=True, as for a built-in fake: the report judges every answer twice
    report = evaluation(
        runs, JudgeChoice(judge, "judge", True), JudgeChoice(SteadyJudge(), "steady", True)
    )
    first = [row["levels"]["end_to_end"]["state"] for row in report.results]
    return first, report.flakiness


# <<<


def test_flakiness_compares_only_the_tally():
    # >>> main
    # First look: where-a1001 scores 9 (passed), refund-timing 3 (failed). Judged again,
    # where-a1001 scores 3 and refund-timing 9: one pass and one fail both times, the pass
    # rate unchanged, and both cases changed their verdict.
    first, repeat = flakiness(SwapsItsVerdicts())
    assert first == ["passed", "failed"]
    assert repeat == {"state": "failed", "repeats": 2}
    # the mirrored half: a judge that repeats itself case by case passes
    assert flakiness(SteadyJudge())[1] == {"state": "passed", "repeats": 2}
    return
    # <<<
    pytest.skip(
        "exercise flakiness-compares-only-the-tally: write this check, then run "
        "`make exercise ID=flakiness-compares-only-the-tally`"
    )
