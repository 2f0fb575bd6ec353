"""The finished agent, traced, behind one function: `run(task, model) -> Trajectory`.

This is the entry point an evaluation runs. It builds a fresh shop for every run (so a return
started in one run cannot leak into the next), plays the model against the stage-6 agent,
and hands back the whole trajectory: every step in order, the answer if there is one, and
how the run stopped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stages.s01_model.model import Model
from stages.s01_model.trace import JsonlTrace
from stages.s02_tools.shop import Shop, load_shop
from stages.s02_tools.tools import ToolBox, shop_tools
from stages.s03_loop.agent import DEFAULT_MAX_STEPS, Step
from stages.s04_retrieval.retrieval import Passage, load_policies
from stages.s06_resilience.agent import Approver, ResilientAgent, nobody_approves
from stages.s06_resilience.resilience import Resilience
from stages.s07_tracing.tracer import Tracer, TraceStep


@dataclass(frozen=True)
class Trajectory:
    """Everything one run did: the task, every traced step, the answer, how it stopped."""

    run_id: str
    task: str
    steps: tuple[TraceStep, ...]
    answer: str | None  # None when the run produced no answer
    stopped: str  # the kind of the last step: answer, refusal, no_answer or run_limit

    @property
    def kinds(self) -> list[str]:
        return [step.kind for step in self.steps]

    @property
    def tools_called(self) -> list[str]:
        return [step.tool for step in self.steps if step.tool is not None]


class TracedAgent(ResilientAgent):
    """The stage-6 agent, writing its steps through a Tracer."""

    def __init__(
        self,
        model: Model,
        tools: ToolBox,
        policies: list[Passage],
        *,
        tracer: Tracer,
        **options: Any,
    ) -> None:
        super().__init__(model, tools, policies, **options)
        self.tracer = tracer

    def record(self, step: Step) -> None:
        attempts = self.attempts if step.tool else None
        self.tracer.emit(step.kind, step.tool, step.arguments, step.text, attempts)


def run(
    task: str,
    model: Model,
    *,
    approve: Approver = nobody_approves,
    max_steps: int = DEFAULT_MAX_STEPS,
    resilience: Resilience | None = None,
    run_id: str | None = None,
    trace_path: Path | None = None,
    shop: Shop | None = None,
    policies: list[Passage] | None = None,
) -> Trajectory:
    """Run the agent on one task and return its trajectory (also appended to `trace_path`)."""
    tracer = Tracer(JsonlTrace(trace_path))
    agent = TracedAgent(
        model,
        shop_tools(shop if shop is not None else load_shop()),
        policies if policies is not None else load_policies(),
        resilience=resilience,
        approve=approve,
        max_steps=max_steps,
        tracer=tracer,
    )
    tracer.begin(run_id)
    outcome = agent.run(task)
    return Trajectory(tracer.run_id, task, tuple(tracer.steps), outcome.answer, outcome.stopped)
