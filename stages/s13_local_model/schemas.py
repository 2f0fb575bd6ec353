"""Structured replies: the server is sent a JSON schema (`response_format`) that its decoder
must follow, {"score": integer 0-10} or {"verdict": "first"|"second"|"tie"}, and the question
asks for that object instead of a bare value.

    structured = ""              a bare reply, as stage 12 asks (the default)
    structured = "json_schema"   the schema in OpenAI's form
    structured = "json_object"   the schema in llama.cpp's form, as the local model takes it

A structured reply is unwrapped to the bare value only when it is exactly the schema's one key
with a valid value; anything else (another key, an 11, "7" as text, prose) is passed on as it
came, and the strict parser leaves it unscored with the raw text kept. A server that ignores
the schema is caught, not trusted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stages.s08_eval.judge import VERDICTS
from stages.s10_agreement.structured import is_score, strict_object
from stages.s12_real_judge import prompts
from stages.s12_real_judge.client import OpenAIJudge
from stages.s12_real_judge.settings import Settings

FORMS = ("", "json_schema", "json_object")  # the `structured` setting: off, OpenAI, llama.cpp
ASK = {
    "score": 'Reply with a JSON object {"score": <integer from 0 to 10>} and nothing else.',
    "verdict": 'Reply with a JSON object {"verdict": "first", "second" or "tie"}.',
}
SCHEMAS: dict[str, dict[str, Any]] = {
    "score": {"type": "integer", "minimum": 0, "maximum": 10},
    "verdict": {"type": "string", "enum": list(VERDICTS)},
}


@dataclass(frozen=True)
class StructuredSettings(Settings):
    structured: str = ""  # "" a bare reply; else a schema sent in this form

    def choices(self) -> dict[str, tuple[str, ...]]:
        return {"structured": FORMS}


def response_format(form: str, shape: str) -> dict[str, Any]:
    """The `response_format` a question of this shape is sent with, in this form."""
    schema = {
        "type": "object",
        "properties": {shape: SCHEMAS[shape]},
        "required": [shape],
        "additionalProperties": False,
    }
    if form == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": shape, "strict": True, "schema": schema},
        }
    return {"type": "json_object", "schema": schema}


def unwrap(raw: str, shape: str) -> str:
    """The bare value of a reply that is exactly {shape: a valid value}; otherwise `raw`."""
    reply = strict_object(raw, {shape})
    if reply is None:
        return raw
    value = reply[shape]
    valid = is_score(value) if shape == "score" else value in VERDICTS
    return str(value) if valid else raw


class StructuredJudge(OpenAIJudge):
    """Stage 12's judge, asking for its replies under a schema when `structured` names a form;
    without one it asks, and journals, exactly as stage 12's does."""

    @property
    def structured(self) -> str:
        settings = self.settings
        return settings.structured if isinstance(settings, StructuredSettings) else ""

    def score(self, task: str, answer: str, reference: str) -> str:
        if not self.structured:
            return super().score(task, answer, reference)
        messages = prompts.score_messages(task, answer, reference, ASK["score"])
        return unwrap(self.ask(messages, shape="score"), "score")

    def compare(self, task: str, first: str, second: str) -> str:
        if not self.structured:
            return super().compare(task, first, second)
        messages = prompts.compare_messages(task, first, second, ASK["verdict"])
        return unwrap(self.ask(messages, shape="verdict"), "verdict")

    def form(self, shape: str) -> dict[str, Any]:
        if not self.structured:
            return {}
        return {"response_format": response_format(self.structured, shape)}

    def key_settings(self) -> dict[str, Any]:
        """Bare replies keep the keys they were journalled under; a form keys its own."""
        settings = self.reply_settings()
        return {**settings, "structured": self.structured} if self.structured else settings
