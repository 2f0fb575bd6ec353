"""No verdict without data: the minimum a measure needs, and the three states it ends in."""

from pathlib import Path

import pytest

from stages.s08_eval.findings import MIN_SHARE, MIN_USABLE, Evidence, Finding, decide


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("usable", "total", "enough"),
    [
        (0, 0, False),  # nothing to measure
        (0, 48, False),  # a judge that gave nothing usable
        (1, 1, False),  # one item: no spread to speak of
        (2, 2, True),  # MIN_USABLE = 2, all of them
        (2, 4, True),  # exactly half: MIN_SHARE = 0.5 is enough
        (2, 5, False),  # 2 of 5 is below half
        (24, 48, True),
        (23, 48, False),
    ],
)
def test_enough_is_a_count_and_a_share(usable, total, enough):
    assert (MIN_USABLE, MIN_SHARE) == (2, 0.5)  # the figures the cases above are read against
    assert (Evidence(usable, total).shortfall() is None) is enough


@pytest.mark.failure_mode
@pytest.mark.parametrize("found", [True, False, None])
def test_too_little_data_is_not_evaluated_whatever_the_figures_say(found):
    outcome = decide(Evidence(1, 10), found)
    assert outcome.state == Finding.NOT_EVALUATED
    assert outcome.reason == (
        "too little usable data: 1 usable of 10, 9 unscored (needs at least 2 and 50%)"
    )


def test_enough_data_end_found_or_not_found_and_an_undefined_figure_says_why():
    evidence = Evidence(10, 10)
    assert decide(evidence, True).state == Finding.FOUND
    assert decide(evidence, False).state == Finding.NOT_FOUND
    undefined = decide(evidence, None, "kappa is undefined")
    assert (undefined.state, undefined.reason) == (
        Finding.NOT_EVALUATED,
        "kappa is undefined (10 usable of 10, 0 unscored)",
    )
    assert decide(evidence, True).fields() == {
        "state": "found", "reason": "", "usable": 10, "total": 10, "unscored": 0,
    }  # fmt: skip


def test_nothing_to_measure_and_too_little_are_told_apart():
    nothing, one = Evidence(0, 0), Evidence(1, 1)
    assert nothing.shortfall() == "nothing to measure"
    assert one.shortfall() == (
        "too little usable data: 1 usable of 1, 0 unscored (needs at least 2 and 50%)"
    )
    for evidence, found in ((nothing, True), (one, False), (Evidence(9, 9), None)):
        assert decide(evidence, found).evidence is evidence  # the counts travel with the state


def test_the_lesson_quotes_the_minimum_the_code_uses():
    lesson = Path(__file__).resolve().parents[1] / "README.md"
    text = " ".join(lesson.read_text().split())  # lines joined where wrapped
    assert f"at least {MIN_USABLE} usable pairs, and at least {MIN_SHARE:.0%} of the pairs" in text
