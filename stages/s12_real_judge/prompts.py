"""What a real judge is asked, in one readable place, and the two forms its reply may take.

    bare         "Reply with one integer ..." — the reply is parsed by judge.py as it comes.
    structured   the server is also sent a JSON schema (`response_format`) that its decoder
                 must follow: {"score": integer 0-10}, or {"verdict": "first"|"second"|"tie"}.
                 OpenAI takes it as `json_schema`; llama.cpp's server as `json_object` with a
                 `schema`: the `structured` setting names the form.

A structured reply is unwrapped to the bare value only when it is exactly the schema's one key
with a valid value; anything else (another key, an 11, "7" as text, prose) is passed on as it
came, and the strict parser leaves it unscored with the raw text kept. A server that ignores
the schema is caught, not trusted.
"""

from __future__ import annotations

from typing import Any

from stages.s08_eval.judge import VERDICTS
from stages.s10_agreement.structured import is_score, strict_object

SYSTEM = (
    "You grade the answers of a web shop's support assistant. You are strict and brief, and "
    "you reply in exactly the form asked for, with nothing else."
)

SCORE = """Question from a customer:
{task}

Reference (what a correct answer says):
{reference}

Answer to grade:
{answer}

How well does the answer agree with the reference? {ask}"""

COMPARE = """Question from a customer:
{task}

Answer A:
{first}

Answer B:
{second}

Which answer is better? {ask}"""

# What each question asks for, bare and structured; the key of a structured reply is its shape.
ASK = {
    ("score", False): "Reply with one integer from 0 to 10 and nothing else.",
    ("score", True): 'Reply with a JSON object {"score": <integer from 0 to 10>} and nothing else.',
    ("verdict", False): "Reply with exactly one word: first (for A), second (for B), or tie.",
    ("verdict", True): 'Reply with a JSON object {"verdict": "first", "second" or "tie"}.',
}
FORMS = ("", "json_schema", "json_object")  # the `structured` setting: off, OpenAI, llama.cpp
SCHEMAS: dict[str, dict[str, Any]] = {
    "score": {"type": "integer", "minimum": 0, "maximum": 10},
    "verdict": {"type": "string", "enum": list(VERDICTS)},
}
Messages = list[dict[str, str]]


def score_messages(task: str, answer: str, reference: str, structured: bool = False) -> Messages:
    ask = ASK["score", structured]
    content = SCORE.format(task=task, answer=answer, reference=reference, ask=ask)
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": content}]


def compare_messages(task: str, first: str, second: str, structured: bool = False) -> Messages:
    ask = ASK["verdict", structured]
    content = COMPARE.format(task=task, first=first, second=second, ask=ask)
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": content}]


def response_format(form: str, shape: str) -> dict[str, Any] | None:
    """The `response_format` a question of this shape is sent with; None when bare."""
    if not form:
        return None
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
