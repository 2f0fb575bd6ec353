"""The agent loop: ask the model, run what it asks for, feed the result back, repeat.

The loop has one safeguard: a step budget. A model that keeps calling tools and never answers
is stopped after `max_steps` replies, and the stop is recorded as a step of its own
(`run_limit`) so that nobody mistakes it for an answer or for a crash.

Later stages change the agent by overriding these hooks, one behaviour each:
    start(task)                  the opening messages
    execute(call)                run one tool call
    observe(call, observation)   the step a tool call leaves
    conclude(text)               turn the model's answer into the final step
    record(step)                 write one step to the trace
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from stages.s01_model.model import SYSTEM_PROMPT, Answer, Message, Model, Name, ToolCall
from stages.s01_model.trace import JsonlTrace
from stages.s02_tools.tools import Observation, ToolBox

DEFAULT_MAX_STEPS = 6


class Stop(Name):
    """How a run ended; each is also the kind of its last step."""

    ANSWER = "answer"  # the model replied with text
    NO_ANSWER = "no_answer"  # the model replied, but with nothing
    RUN_LIMIT = "run_limit"  # the step budget ran out: the safeguard fired


@dataclass(frozen=True)
class Step:
    """One thing that happened in a run: a tool call and what came back, or the ending."""

    kind: str
    tool: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    text: str = ""


@dataclass(frozen=True)
class Outcome:
    """A finished run: the answer (None when there is none), every step, and how it stopped."""

    answer: str | None
    steps: tuple[Step, ...]
    stopped: str


class Agent:
    """Runs one task to an answer, or to the end of its step budget."""

    def __init__(
        self,
        model: Model,
        tools: ToolBox,
        *,
        max_steps: int = DEFAULT_MAX_STEPS,
        trace: JsonlTrace | None = None,
    ) -> None:
        if max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, got {max_steps}")
        self.model = model
        self.tools = tools
        self.max_steps = max_steps
        self.trace = trace if trace is not None else JsonlTrace()
        self.steps: list[Step] = []

    def run(self, task: str) -> Outcome:
        self.steps = []
        messages = self.start(task)
        for _ in range(self.max_steps):
            reply = self.model.respond(messages)
            if isinstance(reply, Answer):
                final = self.conclude(reply.text)
                self._take(final)
                answer = final.text if final.kind != Stop.NO_ANSWER else None
                return Outcome(answer, tuple(self.steps), final.kind)
            observation = self.execute(reply)
            self._take(self.observe(reply, observation))
            messages += [
                Message("assistant", f"call {reply.name} {json.dumps(dict(reply.arguments))}"),
                Message("tool", observation.text),
            ]
        limit = Step(Stop.RUN_LIMIT, text=f"stopped after {self.max_steps} steps without an answer")
        self._take(limit)
        return Outcome(None, tuple(self.steps), Stop.RUN_LIMIT)

    # -- hooks ---------------------------------------------------------------------------

    def start(self, task: str) -> list[Message]:
        return [Message("system", SYSTEM_PROMPT), Message("user", task)]

    def execute(self, call: ToolCall) -> Observation:
        return self.tools.call(call)

    def observe(self, call: ToolCall, observation: Observation) -> Step:
        return Step(observation.kind, call.name, dict(call.arguments), observation.text)

    def conclude(self, text: str) -> Step:
        if not text.strip():
            return Step(Stop.NO_ANSWER, text="the model replied with nothing")
        return Step(Stop.ANSWER, text=text)

    def record(self, step: Step) -> None:
        # Stage 3's trace: a step number and a kind. The number restarts at 0 in every run,
        # so it orders steps within a run but cannot say which run a line belongs to.
        self.trace.write(
            {"step": len(self.steps) - 1, "kind": step.kind, "tool": step.tool, "text": step.text}
        )

    def _take(self, step: Step) -> None:
        self.steps.append(step)
        self.record(step)
