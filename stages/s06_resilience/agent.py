"""An agent that survives its tools: deadlines, retries, errors as observations, and a gate.

Three changes to how a tool call is executed:

1. Every call has a deadline and transient failures are retried with backoff
   (resilience.py). A call that still fails becomes a `tool_error` observation: the model
   reads what went wrong and the run goes on, instead of the agent crashing.
2. Any other exception from a tool also becomes a `tool_error`, tried once.
3. Tools that change the shop (`side_effect=True`) pass a confirm gate first. Without the
   customer's approval the call is `blocked` and nothing happens. They are never retried: a
   retry after a timeout could start the same return twice. And a timeout does not undo
   them: the abandoned call may still finish, and the observation says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from stages.s01_model.model import Model, Name, ToolCall
from stages.s01_model.trace import JsonlTrace
from stages.s02_tools.tools import Observation, ToolBox
from stages.s03_loop.agent import DEFAULT_MAX_STEPS, Step
from stages.s04_retrieval.retrieval import Passage
from stages.s05_memory.agent import MemoryAgent
from stages.s05_memory.memory import Memory
from stages.s06_resilience.resilience import Resilience, call_with_timeout, with_retries

Approver = Callable[[ToolCall], bool]


class Failure(Name):
    TOOL_ERROR = "tool_error"  # the tool failed, after every retry it was allowed
    BLOCKED = "blocked"  # the confirm gate stopped a side-effecting call


def nobody_approves(call: ToolCall) -> bool:
    """The default gate: no customer is there to confirm, so nothing is changed."""
    return False


class ResilientAgent(MemoryAgent):
    """The stage-5 agent, hardened against slow and failing tools."""

    def __init__(
        self,
        model: Model,
        tools: ToolBox,
        policies: list[Passage],
        *,
        resilience: Resilience | None = None,
        approve: Approver = nobody_approves,
        sleep: Callable[[float], None] = time.sleep,
        memory: Memory | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        trace: JsonlTrace | None = None,
    ) -> None:
        super().__init__(model, tools, policies, memory=memory, max_steps=max_steps, trace=trace)
        self.resilience = resilience if resilience is not None else Resilience()
        self.approve = approve
        self.sleep = sleep
        self.attempts = 0  # tries the last tool call took

    def execute(self, call: ToolCall) -> Observation:
        self.attempts = 0
        refused = self.tools.check(call)
        if refused is not None:
            return refused
        side_effect = self.tools.tools[call.name].side_effect
        if side_effect and not self.approve(call):
            return Observation(
                Failure.BLOCKED,
                f"{call.name} changes the shop and needs the customer's confirmation;"
                " nothing was done",
            )
        policy = replace(self.resilience, attempts=1) if side_effect else self.resilience
        run_once = super().execute
        try:
            observation, self.attempts = with_retries(
                lambda: call_with_timeout(lambda: run_once(call), policy.timeout_s),
                policy,
                self.sleep,
            )
        except Exception as error:
            self.attempts = getattr(error, "attempts", 1)
            text = f"{call.name} failed after {self.attempts} attempt(s): "
            text += f"{type(error).__name__}: {error}"
            if side_effect and isinstance(error, TimeoutError):
                # The abandoned call may still finish: say so rather than imply nothing happened.
                text += "; it may still complete, so check before trying again"
            return Observation(Failure.TOOL_ERROR, text)
        return observation

    def record(self, step: Step) -> None:
        # Stage 6's trace stamps the time and the tries. A timestamp orders lines, but two
        # runs at once interleave and nothing in a line says which run it came from.
        self.trace.write(
            {
                "ts": round(time.time(), 3),
                "turn": self.turn,
                "step": len(self.steps) - 1,
                "kind": step.kind,
                "tool": step.tool,
                "attempts": self.attempts if step.tool else None,
                "text": step.text,
            }
        )
