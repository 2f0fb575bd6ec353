"""Fake judges: one steady, one biased on purpose, and several that fail in documented ways.

All of them measure content the same way: the share of the reference's content words that
the answer contains (`grounding`, 0.0 to 1.0; words as stage 4 counts them). That is the
honest part. The biased judge adds what a judge should never reward.

They are deterministic and make no network calls. They do not imitate any real model; they
play the role of an instrument whose faults are known, so that a detector can be tested
against a fault it must find and against a judge that has none.
"""

from __future__ import annotations

from stages.s04_retrieval.retrieval import words
from stages.s08_eval.judge import OverBudget, RateLimited


def grounding(answer: str, reference: str) -> float:
    """Share of the reference's content words found in the answer; 1.0 for an empty reference."""
    wanted = words(reference)
    if not wanted:
        return 1.0
    return len(wanted & words(answer)) / len(wanted)


def content(task: str, answer: str) -> int:
    """What an answer says about the task: how many of the task's content words it uses."""
    return len(words(task) & words(answer))


def _verdict(first: int, second: int) -> str:
    if first == second:
        return "tie"
    return "first" if first > second else "second"


class SteadyJudge:
    """A judge that grades content only.

    score: round(10 * grounding(answer, reference)) — padding that adds no reference word
    adds nothing. compare: the answer that uses more of the task's words wins, a tie is a tie;
    the order in which the two are shown makes no difference.
    """

    def score(self, task: str, answer: str, reference: str) -> str:
        return str(round(10 * grounding(answer, reference)))

    def compare(self, task: str, first: str, second: str) -> str:
        return _verdict(content(task, first), content(task, second))


class BiasedJudge:
    """A judge that is wrong on purpose, in two documented ways.

    What it gets wrong: the answer shown first gets a free point, and every 40 characters
    add another, whatever they say (score: the steady score plus len(answer) // 40, at most
    10; compare: task words used, plus len // 40, plus 1 for the first slot). The position
    and length detectors of stage 8 catch it.

    `slot` and `chars_per_point` change which slot gets the point and how many characters
    buy one, so that the detectors can be shown to catch a bias they were not tuned to.
    """

    def __init__(self, slot: str = "first", chars_per_point: int = 40) -> None:
        if slot not in ("first", "second"):
            raise ValueError(f"slot must be 'first' or 'second', got {slot!r}")
        self.slot = slot
        self.chars_per_point = chars_per_point

    def score(self, task: str, answer: str, reference: str) -> str:
        steady = round(10 * grounding(answer, reference))
        return str(min(10, steady + len(answer) // self.chars_per_point))

    def compare(self, task: str, first: str, second: str) -> str:
        points = [
            content(task, text) + len(text) // self.chars_per_point for text in (first, second)
        ]
        points[0 if self.slot == "first" else 1] += 1
        return _verdict(points[0], points[1])


def favours_second_slot() -> BiasedJudge:
    """A biased judge whose free point goes to the answer shown second."""
    return BiasedJudge(slot="second")


def point_per_25_chars() -> BiasedJudge:
    """A biased judge that is greedier for length: a point for every 25 characters."""
    return BiasedJudge(chars_per_point=25)


class ProseJudge:
    """A judge that answers in sentences instead of the bare reply it was asked for."""

    def score(self, task: str, answer: str, reference: str) -> str:
        return "I would rate this 3 out of 10."

    def compare(self, task: str, first: str, second: str) -> str:
        return "I think the first one is better."


class RateLimitedJudge:
    """A judge whose provider refuses every call: HTTP 429."""

    def score(self, task: str, answer: str, reference: str) -> str:
        raise RateLimited("429 Too Many Requests")

    def compare(self, task: str, first: str, second: str) -> str:
        raise RateLimited("429 Too Many Requests")


class TimedOutJudge:
    """A judge that never replies in time."""

    def score(self, task: str, answer: str, reference: str) -> str:
        raise TimeoutError("no reply within 30 s")

    def compare(self, task: str, first: str, second: str) -> str:
        raise TimeoutError("no reply within 30 s")


class OverBudgetJudge:
    """A judge whose call budget is already spent: every call is refused before it is made."""

    def score(self, task: str, answer: str, reference: str) -> str:
        raise OverBudget("judge budget of 0 calls spent")

    def compare(self, task: str, first: str, second: str) -> str:
        raise OverBudget("judge budget of 0 calls spent")
