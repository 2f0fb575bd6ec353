"""What a real judge is asked, in one readable place: a system line, then the question with
what the reply must be ("Reply with one integer ..."), for stage 8's strict parsers."""

from __future__ import annotations

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

# What each question asks the reply to be, by the reply's shape
ASK = {
    "score": "Reply with one integer from 0 to 10 and nothing else.",
    "verdict": "Reply with exactly one word: first (for A), second (for B), or tie.",
}
Messages = list[dict[str, str]]


def score_messages(task: str, answer: str, reference: str, ask: str = ASK["score"]) -> Messages:
    content = SCORE.format(task=task, answer=answer, reference=reference, ask=ask)
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": content}]


def compare_messages(task: str, first: str, second: str, ask: str = ASK["verdict"]) -> Messages:
    content = COMPARE.format(task=task, first=first, second=second, ask=ask)
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": content}]
