"""The form of a judge's reply: a bare number, or strict structured output.

    bare    an integer 0-10 and nothing else (stage 8's parse_score)
    json    exactly {"score": <integer 0-10>, "reason": "<text>"}

Anything else — prose around the JSON, a float, a string "7", a missing or extra key, a
boolean — is unscored with the raw text kept and counted, never a silent zero. The reason is
what the review queue shows a person beside each disagreement.
"""

from __future__ import annotations

import json
from typing import Any

from stages.s01_model.model import Name
from stages.s08_eval.judge import parse_score

KEYS = {"score", "reason"}


class Reply(Name):
    BARE = "bare"  # a bare integer
    JSON = "json"  # {"score": int, "reason": str}

    def parse(self, raw: str) -> int | None:
        """The score in a reply of this form, or None."""
        return parse_json_score(raw) if self is Reply.JSON else parse_score(raw)

    @property
    def hint(self) -> str:
        """What the judge was asked for, said beside its unscored replies."""
        if self is Reply.BARE:
            return ""
        return f"asked for strict JSON with exactly the keys {sorted(KEYS)}, score 0-10"


def parse_json_score(raw: str) -> int | None:
    """The score of a strict {"score": int, "reason": str} reply, or None."""
    reply = strict_object(raw, KEYS) or {"score": None, "reason": None}
    score, reason = reply["score"], reply["reason"]
    return score if is_score(score) and isinstance(reason, str) else None


def strict_object(raw: str, keys: set[str]) -> dict[str, Any] | None:
    """The JSON object `raw` is, when its keys are exactly `keys`; None for anything else
    (prose around it, a list, a key missing or one more). Every JSON reply is read here."""
    try:
        reply = json.loads(raw)
    except json.JSONDecodeError:
        return None
    return reply if isinstance(reply, dict) and set(reply) == keys else None


def is_score(value: object) -> bool:
    """An integer 0-10: not 7.0, not the text "7", not true (which Python counts as 1)."""
    return type(value) is int and 0 <= value <= 10


def json_reason(raw: str | None) -> str | None:
    """The judge's own reason from a reply that parsed; None otherwise."""
    if raw is None or parse_json_score(raw) is None:
        return None
    return str(json.loads(raw)["reason"])
