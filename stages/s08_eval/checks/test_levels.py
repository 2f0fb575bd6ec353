"""Three levels, each blaming only its own layer; silence is never success."""

import pytest

from fakes.judges import ProseJudge, RateLimitedJudge, SteadyJudge
from stages.s08_eval.judge import CountingJudge
from stages.s08_eval.levels import Verdict, component, end_to_end, evaluate, trajectory


class RecordingJudge:
    """A steady judge that remembers every answer it was shown."""

    def __init__(self, reply=None):
        self.shown = []
        self.asked = []
        self.reply = reply

    def score(self, task, answer, reference):
        self.shown.append(answer)
        self.asked.append((task, reference))
        return self.reply or SteadyJudge().score(task, answer, reference)

    def compare(self, task, first, second):
        return "tie"


@pytest.mark.failure_mode
def test_end_to_end_grades_the_answer_in_the_trajectory_not_the_case_file(runs):
    run = runs["wrong-answer"]
    judge = RecordingJudge()
    verdict = end_to_end(run, judge)
    assert judge.shown == [run.trajectory.answer]
    assert judge.asked == [(run.case.task, run.case.expected_answer)]
    assert run.trajectory.answer != run.case.expected_answer
    # reference words {order, a1001, should, arrive, within, 2, business, day, parcelco};
    # the answer has order, a1001, parcelco, should, arrive: 5 of 9 -> 6, below the mark of 7
    assert (verdict.state, verdict.reason) == ("failed", "score 6 of 10, pass mark 7")


@pytest.mark.failure_mode
@pytest.mark.parametrize("case_id", ["never-answers", "empty-reply"])
def test_a_run_with_no_answer_is_unscored_and_the_judge_is_not_asked(runs, case_id):
    judge = RecordingJudge()
    verdict = end_to_end(runs[case_id], judge)
    assert (verdict.state, verdict.reason) == ("unscored", "no answer in the trace")
    assert judge.shown == []


@pytest.mark.failure_mode
def test_an_unavailable_judge_makes_end_to_end_unscored_never_failed(runs):
    states = {end_to_end(run, RateLimitedJudge()).state for run in runs.values()}
    assert states == {"unscored"}


@pytest.mark.failure_mode
def test_a_judge_in_prose_leaves_every_judged_level_unscored_with_its_words(runs):
    verdicts = [end_to_end(run, ProseJudge()) for run in runs.values() if run.trajectory.answer]
    assert {v.state for v in verdicts} == {"unscored"}
    assert {v.raw for v in verdicts} == {"I would rate this 3 out of 10."}


def test_the_path_passes_when_tools_and_order_match(runs):
    verdict = trajectory(runs["where-a1001"])
    assert (verdict.state, verdict.method) == ("passed", "checked")


@pytest.mark.failure_mode
def test_the_right_tools_in_the_wrong_order_fail_the_path(runs):
    verdict = trajectory(runs["wrong-order-of-tools"])
    assert verdict.state == "failed"
    assert verdict.reason == (
        "called ['delivery_estimate', 'order_status'], "
        "expected ['order_status', 'delivery_estimate']"
    )


@pytest.mark.failure_mode
def test_a_path_longer_than_its_budget_fails(runs):
    run = runs["malformed-args"]  # two order_status calls
    tight = type(run)(type(run.case)(**{**run.case.__dict__, "step_budget": 1}), run.trajectory)
    assert trajectory(tight) == Verdict("trajectory", "failed", "checked", "2 tool steps, budget 1")


@pytest.mark.failure_mode
def test_the_run_limit_is_a_component_fault_not_billed_to_the_path(runs):
    run = runs["never-answers"]
    assert trajectory(run).state == "unscored"
    verdict = component(run)
    assert verdict.state == "failed" and "loop: run_limit" in verdict.reason


@pytest.mark.failure_mode
def test_a_trajectory_with_no_component_step_is_unscored_not_passed(runs):
    for case_id in ("unknown-tool", "empty-reply", "return-unconfirmed"):
        verdict = component(runs[case_id])
        assert (verdict.state, verdict.reason) == ("unscored", "no component step in the trace")


@pytest.mark.failure_mode
def test_a_timed_out_tool_is_a_component_failure_behind_a_good_answer(runs):
    run = runs["hanging-carrier"]
    judge = SteadyJudge()
    assert component(run).reason == "delivery_estimate: tool_error"
    assert component(run).state == "failed"
    assert end_to_end(run, judge).state == "passed"  # the answer said honestly what failed


def test_deterministic_levels_ask_the_judge_nothing(runs):
    judge = CountingJudge(SteadyJudge(), "steady")
    for run in runs.values():
        trajectory(run)
        component(run)
    assert judge.calls == 0
    for run in runs.values():
        evaluate(run, judge)
    assert judge.calls == sum(run.trajectory.answer is not None for run in runs.values())


@pytest.mark.parametrize(("reply", "state"), [("7", "passed"), ("6", "failed"), ("10", "passed")])
def test_the_pass_mark_is_seven_and_seven_passes(runs, reply, state):
    verdict = end_to_end(runs["where-a1001"], RecordingJudge(reply))
    assert verdict == Verdict(
        "end_to_end", state, "judged", f"score {reply} of 10, pass mark 7", reply
    )


def test_a_path_that_uses_its_whole_budget_is_within_it(runs):
    run = runs["where-a1001"]  # two tool steps
    exact = type(run)(type(run.case)(**{**run.case.__dict__, "step_budget": 2}), run.trajectory)
    assert trajectory(exact) == Verdict(
        "trajectory", "passed", "checked", "called ['order_status', 'delivery_estimate']"
    )


@pytest.mark.failure_mode
def test_every_component_fault_is_named(tmp_path):
    from stages.s08_eval.cases import Case, run_case

    twice = Case(
        id="twice",
        task="When will A1009 arrive?",
        expected_answer="Not known.",
        expected_tools=("delivery_estimate",),
        step_budget=2,
        script=({"fault": "tool_timeout"}, {"fault": "never_answers"}),
    )
    verdict = component(run_case(twice))
    assert verdict == Verdict(
        "component",
        "failed",
        "checked",
        "delivery_estimate: tool_error; delivery_estimate: tool_error; loop: run_limit",
    )
