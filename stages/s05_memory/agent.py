"""An agent that keeps a memory across the turns of one conversation.

`remember(key, value)` is a tool the model may call. Stored facts open every later turn in
the system message. A value that looks like a secret is refused (a `secret_refused` step)
and withheld from the step itself (its key too, when the key is the secret), so it reaches
neither memory nor trace.
"""

from __future__ import annotations

from stages.s01_model.model import Message, Model, Name, ToolCall
from stages.s01_model.trace import JsonlTrace
from stages.s02_tools.tools import Observation, Tool, ToolBox
from stages.s03_loop.agent import DEFAULT_MAX_STEPS, Step
from stages.s04_retrieval.agent import GroundedAgent
from stages.s04_retrieval.retrieval import Passage
from stages.s05_memory.memory import Memory, secret_reason

WITHHELD = "[withheld]"


class Remembering(Name):
    SECRET_REFUSED = "secret_refused"  # the memory filter would not store this value


class MemoryAgent(GroundedAgent):
    """The stage-4 agent plus a memory that lasts across turns (one `run` per turn)."""

    def __init__(
        self,
        model: Model,
        tools: ToolBox,
        policies: list[Passage],
        *,
        memory: Memory | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        trace: JsonlTrace | None = None,
    ) -> None:
        remember = Tool(
            "remember",
            "Remember a preference of the customer for later turns.",
            {"key": str, "value": str},
            self._remember,
        )
        super().__init__(
            model, tools.with_tool(remember), policies, max_steps=max_steps, trace=trace
        )
        self.memory = memory if memory is not None else Memory()
        self.turn = 0
        self.refusals: list[str] = []  # why each refused value was refused (never the value)

    def start(self, task: str) -> list[Message]:
        self.turn += 1
        messages = super().start(task)
        if self.memory.facts:
            known = f"What you know about this customer: {self.memory.describe()}."
            system = messages[0]
            messages[0] = Message(system.role, f"{system.content}\n{known}")
        return messages

    def _remember(self, key: str, value: str) -> str:
        reason = self.memory.store(key, value)
        if reason is None:
            return f"remembered {key}"
        self.refusals.append(reason)
        return f"not stored: {reason}"

    def execute(self, call: ToolCall) -> Observation:
        refused_before = len(self.refusals)
        observation = super().execute(call)
        if len(self.refusals) > refused_before:
            return Observation(Remembering.SECRET_REFUSED, observation.text)
        return observation

    def observe(self, call: ToolCall, observation: Observation) -> Step:
        step = super().observe(call, observation)
        if observation.kind != Remembering.SECRET_REFUSED:
            return step
        # the value always; the key too when it is a secret on its own ("4111 1111 ..." as key)
        arguments = {**step.arguments, "value": WITHHELD}
        if secret_reason(str(arguments.get("key", ""))):
            arguments["key"] = WITHHELD
        return Step(step.kind, step.tool, arguments, step.text)

    def record(self, step: Step) -> None:
        # Stage 5's trace numbers turns as well as steps: better, but the turn count starts
        # again in every conversation, so lines still cannot be grouped into runs.
        self.trace.write(
            {
                "turn": self.turn,
                "step": len(self.steps) - 1,
                "kind": step.kind,
                "tool": step.tool,
                "text": step.text,
            }
        )
