"""What a model is to the agent: something that reads messages and replies.

A reply is either a request to call a tool or a final answer. The agent never sees how the
model got there; it sees one of these two records. Swapping a real model for the scripted
fake in `fakes/` changes nothing else in the code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol


class Name(str, Enum):
    """Base of the course's closed sets of names: it prints, formats and serialises as its
    bare value (`answer`, not `Stop.ANSWER`), on every Python from 3.10 on."""

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class Message:
    """One turn of the conversation: who spoke (system, user, assistant, tool) and what."""

    role: str
    content: str


@dataclass(frozen=True)
class ToolCall:
    """The model asks the agent to run a tool with these arguments."""

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Answer:
    """The model's final reply to the user. Empty text means the model said nothing."""

    text: str


Reply = ToolCall | Answer


class Model(Protocol):
    """Anything that can take the conversation so far and reply to it."""

    def respond(self, messages: Sequence[Message]) -> Reply: ...


SYSTEM_PROMPT = "You are the support assistant of a small web shop. Be brief and exact."


def ask(model: Model, question: str) -> Reply:
    """One model call: a system message, the user's question, and whatever comes back."""
    return model.respond([Message("system", SYSTEM_PROMPT), Message("user", question)])
