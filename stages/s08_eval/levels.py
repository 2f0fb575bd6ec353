"""Three levels, each allowed to blame only its own layer.

    end_to_end   the final answer in the trajectory, and nothing else         (judged)
    trajectory   which tools, in what order, within the step budget           (checked)
    component    each step where a tool ran: did it return something usable  (checked)

Attribution: an answer that is wrong because a tool timed out is a component failure with an
end-to-end symptom. The run limit firing is the loop's safeguard at work: a component fault,
not billed to the path.

Silence is never success. A run with no answer is unscored at end-to-end ("no answer in the
trace"), never graded from the case file; a trajectory with no component step is unscored
at component level, not passed; a judge that could not answer makes its level unscored,
never failed.
"""

from __future__ import annotations

from dataclasses import dataclass

from stages.s01_model.model import Name
from stages.s08_eval.cases import CaseRun
from stages.s08_eval.judge import Judge, read_score

PASS_MARK = 7  # a judged score of at least this, out of 10, passes
USABLE = {"tool_result", "secret_refused"}  # component steps that gave something usable
FAULTS = {"tool_error", "run_limit"}  # component steps where a tool, or the loop's limit, fired


class Level(Name):
    END_TO_END = "end_to_end"
    TRAJECTORY = "trajectory"
    COMPONENT = "component"


class State(Name):
    """What a level concluded about one case."""

    PASSED = "passed"
    FAILED = "failed"
    UNSCORED = "unscored"  # nothing to grade, or the instrument could not grade
    NOT_EVALUATED = "not_evaluated"  # cannot be established honestly in this run


class Method(Name):
    CHECKED = "checked"  # deterministic
    JUDGED = "judged"  # a judge was asked


@dataclass(frozen=True)
class Verdict:
    level: str
    state: str
    method: str
    reason: str
    raw: str | None = None  # the judge's reply, when one was asked


def end_to_end(run: CaseRun, judge: Judge) -> Verdict:
    """Grade the answer the trajectory gave against the case's expected answer."""
    answer = run.trajectory.answer
    if answer is None:
        return Verdict(Level.END_TO_END, State.UNSCORED, Method.JUDGED, "no answer in the trace")
    reading = read_score(judge, run.case.task, answer, run.case.expected_answer)
    if reading.value is None:
        return Verdict(Level.END_TO_END, State.UNSCORED, Method.JUDGED, reading.reason, reading.raw)
    state = State.PASSED if int(reading.value) >= PASS_MARK else State.FAILED
    reason = f"score {reading.value} of 10, pass mark {PASS_MARK}"
    return Verdict(Level.END_TO_END, state, Method.JUDGED, reason, reading.raw)


def trajectory(run: CaseRun) -> Verdict:
    """Compare the tools called, in order, with the case's, and count them against the budget."""
    if "run_limit" in run.trajectory.kinds:
        reason = "the run limit cut the path short; the fault is a component's, not the path's"
        return Verdict(Level.TRAJECTORY, State.UNSCORED, Method.CHECKED, reason)
    called = run.trajectory.tools_called
    expected = list(run.case.expected_tools)
    if len(called) > run.case.step_budget:
        reason = f"{len(called)} tool steps, budget {run.case.step_budget}"
        return Verdict(Level.TRAJECTORY, State.FAILED, Method.CHECKED, reason)
    if called != expected:
        reason = f"called {called}, expected {expected}"
        return Verdict(Level.TRAJECTORY, State.FAILED, Method.CHECKED, reason)
    return Verdict(Level.TRAJECTORY, State.PASSED, Method.CHECKED, f"called {called}")


def component(run: CaseRun) -> Verdict:
    """Grade every step where a tool ran (or the loop's safeguard fired) on its own."""
    graded = [step for step in run.trajectory.steps if step.kind in USABLE | FAULTS]
    if not graded:
        reason = "no component step in the trace"
        return Verdict(Level.COMPONENT, State.UNSCORED, Method.CHECKED, reason)
    faults = [f"{step.tool or 'loop'}: {step.kind}" for step in graded if step.kind in FAULTS]
    if faults:
        return Verdict(Level.COMPONENT, State.FAILED, Method.CHECKED, "; ".join(faults))
    return Verdict(Level.COMPONENT, State.PASSED, Method.CHECKED, f"{len(graded)} step(s) usable")


def evaluate(run: CaseRun, judge: Judge) -> dict[str, Verdict]:
    return {
        Level.END_TO_END: end_to_end(run, judge),
        Level.TRAJECTORY: trajectory(run),
        Level.COMPONENT: component(run),
    }
