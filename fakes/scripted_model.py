"""A fake model that plays a written script, and says so loudly when the agent leaves it.

A script is a JSON object: the task it was written for and the replies, in order.

    {"task": "Where is order A1001?",
     "steps": [{"call": "order_status", "args": {"order_id": "A1001"}},
               {"answer": "Order A1001 shipped on 20 November."}]}

Each step is one reply: `{"call": NAME, "args": {...}}` asks for a tool, `{"answer": TEXT}`
ends the turn, and `{"fault": KIND}` makes the model misbehave in a documented way:

    unknown_tool     asks for a tool no agent has (`refund_everything`)
    malformed_args   calls `call` (default order_status) with a wrong key and a wrong type
    tool_timeout     asks for the delivery estimate of order A1009, whose carrier never
                     answers: the tool, not the model, times out
    never_answers    from here on repeats its last tool call forever; only a step budget
                     stops it
    empty_reply      replies with nothing at all: the turn ends with no answer

The model does not read the conversation to decide what to say; it only checks, on its
first call, that the user's message is the task the script was written for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import load_json
from stages.s01_model.model import Answer, Message, Reply, ToolCall

UNKNOWN_TOOL = "refund_everything"
HANGING_ORDER = "A1009"  # shipped with a carrier whose tracking service never answers
FAULTS = ("unknown_tool", "malformed_args", "tool_timeout", "never_answers", "empty_reply")


class OffScriptError(CourseInputError):
    """The agent asked the model for something its script does not contain.

    It is bad input, not a crash: the script does not fit the conversation it was given to.
    """


@dataclass(frozen=True)
class Script:
    """A validated script: the task it was written for and one reply per step."""

    task: str | None
    steps: tuple[Mapping[str, Any], ...]
    source: str


def parse_script(data: Any, source: str) -> Script:
    """Check a script's shape; every problem names the source and the step."""
    if isinstance(data, list):
        data = {"steps": data}
    if not isinstance(data, dict):
        raise CourseInputError(f"{source}: a script is a JSON object, got {type(data).__name__}")
    unknown = set(data) - {"task", "steps"}
    if unknown:
        raise CourseInputError(
            f"{source}: unknown key {sorted(unknown)[0]!r}; allowed: steps, task"
        )
    task = data.get("task")
    if task is not None and not isinstance(task, str):
        raise CourseInputError(f"{source}: task must be text, got {task!r}")
    steps = data.get("steps")
    if not isinstance(steps, list) or not steps:
        raise CourseInputError(f"{source}: steps must be a non-empty list, got {steps!r}")
    for number, step in enumerate(steps, start=1):
        _check_step(step, f"{source}: step {number}")
    return Script(task, tuple(steps), source)


def _check_step(step: Any, where: str) -> None:
    if not isinstance(step, dict):
        raise CourseInputError(f"{where}: expected an object, got {step!r}")
    kinds = [key for key in ("call", "answer", "fault") if key in step]
    if "fault" in step:
        allowed = {"fault", "call", "args"}
        if step["fault"] not in FAULTS:
            raise CourseInputError(
                f"{where}: fault {step['fault']!r} is not one of {', '.join(FAULTS)}"
            )
    elif kinds == ["call"]:
        allowed = {"call", "args"}
    elif kinds == ["answer"]:
        allowed = {"answer"}
    else:
        raise CourseInputError(f"{where}: needs exactly one of call, answer, fault; got {step!r}")
    extra = set(step) - allowed
    if extra:
        raise CourseInputError(f"{where}: unexpected key {sorted(extra)[0]!r} in {step!r}")
    if "call" in step and not isinstance(step["call"], str):
        raise CourseInputError(f"{where}: call must be a tool name, got {step['call']!r}")
    if not isinstance(step.get("args", {}), dict):
        raise CourseInputError(f"{where}: args must be an object, got {step['args']!r}")
    if "answer" in step and not isinstance(step["answer"], str):
        raise CourseInputError(f"{where}: answer must be text, got {step['answer']!r}")


def load_script(path: Path) -> Script:
    """Read and check a script file."""
    return parse_script(load_json(path), str(path))


class ScriptedModel:
    """Replies from a script, one step per call, and records every conversation it was shown.

    Used off-script (called after its last step, or on a task it was not written for) it
    raises OffScriptError naming the step it expected to play.
    """

    def __init__(self, script: Script) -> None:
        self.script = script
        self.calls: list[tuple[Message, ...]] = []
        self._next = 0
        self._looping: ToolCall | None = None
        self._last_call: ToolCall | None = None

    @classmethod
    def from_steps(cls, steps: list[dict[str, Any]], task: str | None = None) -> ScriptedModel:
        """A model from an inline script (tests and demos)."""
        return cls(parse_script({"task": task, "steps": steps}, "inline script"))

    def respond(self, messages: Sequence[Message]) -> Reply:
        self.calls.append(tuple(messages))
        if len(self.calls) == 1:
            self._check_task(messages)
        if self._looping is not None:
            return self._looping
        if self._next >= len(self.script.steps):
            raise OffScriptError(
                f"{self.script.source}: expected step {self._next + 1}, but the script has "
                f"only {len(self.script.steps)}; the agent asked again after "
                f"{_last(messages)!r}"
            )
        step = self.script.steps[self._next]
        self._next += 1
        reply = self._play(step)
        if isinstance(reply, ToolCall):
            self._last_call = reply
        return reply

    @property
    def finished(self) -> bool:
        """True when every step of the script has been played."""
        return self._next == len(self.script.steps)

    def _check_task(self, messages: Sequence[Message]) -> None:
        asked = next((m.content for m in messages if m.role == "user"), None)
        if self.script.task is not None and asked != self.script.task:
            raise OffScriptError(
                f"{self.script.source}: expected step 1 for task {self.script.task!r}, "
                f"but the agent asked {asked!r}"
            )

    def _play(self, step: Mapping[str, Any]) -> Reply:
        if "answer" in step:
            return Answer(step["answer"])
        if "call" in step and "fault" not in step:
            return ToolCall(step["call"], dict(step.get("args", {})))
        fault = step["fault"]
        if fault == "unknown_tool":
            return ToolCall(UNKNOWN_TOOL, {})
        if fault == "malformed_args":
            return ToolCall(step.get("call", "order_status"), {"order": 1009})
        if fault == "tool_timeout":
            return ToolCall("delivery_estimate", {"order_id": HANGING_ORDER})
        if fault == "never_answers":
            if "call" in step:
                self._looping = ToolCall(step["call"], dict(step.get("args", {})))
            else:
                self._looping = self._last_call or ToolCall("order_status", {"order_id": "A1001"})
            return self._looping
        return Answer("")  # empty_reply


def _last(messages: Sequence[Message]) -> str:
    return messages[-1].content[:80] if messages else ""
