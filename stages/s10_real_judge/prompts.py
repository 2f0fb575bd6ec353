"""What a real judge is asked, in one readable place. The replies are parsed by judge.py."""

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

How well does the answer agree with the reference? Reply with one integer from 0 to 10 and
nothing else."""

COMPARE = """Question from a customer:
{task}

Answer A:
{first}

Answer B:
{second}

Which answer is better? Reply with exactly one word: first (for A), second (for B), or tie."""


def score_messages(task: str, answer: str, reference: str) -> list[dict[str, str]]:
    content = SCORE.format(task=task, answer=answer, reference=reference)
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": content}]


def compare_messages(task: str, first: str, second: str) -> list[dict[str, str]]:
    content = COMPARE.format(task=task, first=first, second=second)
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": content}]
