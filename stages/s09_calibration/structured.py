"""The form of a judge's reply: a bare number, or strict structured output.

    bare    an integer 0-10 and nothing else (stage 8's parse_score)
    json    exactly {"score": <integer 0-10>, "reason": "<text>"}

Anything else — prose around the JSON, a float, a string "7", a missing or extra key, a
boolean — is unscored with the raw text kept and counted, never a silent zero.
"""

from __future__ import annotations

import json

from stages.s01_model.model import Name
from stages.s08_eval.judge import parse_score

KEYS = {"score", "reason"}


class Reply(Name):
    BARE = "bare"  # a bare integer
    JSON = "json"  # {"score": int, "reason": str}

    def parse(self, raw: str) -> int | None:
        """The score in a reply of this form, or None."""
        return parse_json_score(raw) if self is Reply.JSON else parse_score(raw)


def parse_json_score(raw: str) -> int | None:
    """The score of a strict {"score": int, "reason": str} reply, or None."""
    try:
        reply = json.loads(raw)
    except json.JSONDecodeError:
        return None
    if not isinstance(reply, dict) or set(reply) != KEYS:
        return None
    score, reason = reply["score"], reply["reason"]
    if type(score) is not int or not 0 <= score <= 10 or not isinstance(reason, str):
        return None
    return score


def json_reason(raw: str | None) -> str | None:
    """The judge's own reason from a reply that parsed; None otherwise."""
    if raw is None or parse_json_score(raw) is None:
        return None
    reason: str = json.loads(raw)["reason"]
    return reason
