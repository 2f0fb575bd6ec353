"""Fake judges: one steady, one biased on purpose, and several that fail in documented ways.

All of them measure content the same way: the share of the reference's content words that
the answer contains (`grounding`, 0.0 to 1.0; words as stage 4 counts them). That is the
honest part. The biased judge adds what a judge should never reward.

They are deterministic and make no network calls. They do not imitate any real model; they
play the role of an instrument whose faults are known, so that a detector can be tested
against a fault it must find and against a judge that has none.
"""

from __future__ import annotations

# >>> stage 9
import json
import random

# <<<
import re
import threading

from stages.s04_retrieval.retrieval import words
from stages.s08_eval.judge import OverBudget, RateLimited

# >>> stage 9
# One item of stage 9's required-facts checklist, as the task text lists them.
CHECKLIST_ITEM = re.compile(r"^- does the answer state: (.+)\? \(yes or no\)$", re.MULTILINE)


def checklist_score(task: str, answer: str) -> int | None:
    """What the checklist asks for: 10 times the share of its facts the answer states.

    None when the task carries no checklist. Padding repeats the facts an answer has and
    adds none, so under a checklist it earns nothing.
    """
    required = CHECKLIST_ITEM.findall(task)
    if not required:
        return None
    stated = sum(fact.lower() in answer.lower() for fact in required)
    return round(10 * stated / len(required))


# <<<


def grounding(answer: str, reference: str) -> float:
    """Share of the reference's content words found in the answer; 1.0 for an empty reference."""
    wanted = words(reference)
    if not wanted:
        return 1.0
    return len(wanted & words(answer)) / len(wanted)


def content(task: str, answer: str) -> int:
    """What an answer states: how many distinct figures (the shop's facts are figures).

    Restating the task or rephrasing adds none; only a new number does.
    """
    return len(set(re.findall(r"\d+(?:[.,]\d+)?", answer)))


def _verdict(first: int, second: int) -> str:
    if first == second:
        return "tie"
    return "first" if first > second else "second"


class SteadyJudge:
    """A judge that grades content only.

    score: round(10 * grounding(answer, reference)) — padding that adds no reference word
    adds nothing. compare: the answer that states more distinct figures wins, a tie is a tie;
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
    10; compare: figures stated, plus len // 40, plus 1 for the first slot). The position
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
        # >>> stage 9
        # Given a required-facts checklist it does what the checklist says, by construction:
        # it ticks each fact the answer states and scores that, so length earns nothing. A
        # real model may not obey; only measuring one shows whether the rubric fixes it.
        ticked = checklist_score(task, answer)
        if ticked is not None:
            return str(ticked)
        # <<<
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


class SilentJudge:
    """A judge whose replies are not text at all: None, where a string was promised."""

    def score(self, task: str, answer: str, reference: str) -> str:
        return None  # type: ignore[return-value]  # the flaw this fake stands for

    def compare(self, task: str, first: str, second: str) -> str:
        return None  # type: ignore[return-value]


class HangingJudge:
    """A judge that never answers: every call waits for ever (until the process ends).

    `calls` counts the calls begun on any HangingJudge in this process: a command builds its
    own from the SPEC, and a check reads here how many calls were left waiting.
    """

    calls = 0  # on the class, for the reason above
    lock = threading.Lock()

    def score(self, task: str, answer: str, reference: str) -> str:
        return self.hang()

    def compare(self, task: str, first: str, second: str) -> str:
        return self.hang()

    def hang(self) -> str:
        with HangingJudge.lock:
            HangingJudge.calls += 1  # a subclass's instance counts here too
        threading.Event().wait()
        raise AssertionError("unreachable")


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


# >>> stage 9
class NoisyJudge:
    """The steady judge plus seeded noise: each score moves by up to `spread` points.

    Unbiased on average, wrong on any one call: scored once, an original and its twin can
    differ by noise alone. Stage 9 scores each text several times and averages for this.
    """

    def __init__(self, seed: int, spread: int = 2) -> None:
        self.random = random.Random(seed)
        self.spread = spread

    def score(self, task: str, answer: str, reference: str) -> str:
        steady = round(10 * grounding(answer, reference))
        return str(max(0, min(10, steady + self.random.randint(-self.spread, self.spread))))

    def compare(self, task: str, first: str, second: str) -> str:
        return SteadyJudge().compare(task, first, second)


def bullets_style(text: str) -> bool:
    """The bullets family's fingerprint: a stock opener, or a bullet list."""
    return text.startswith("Great question!") or "\n- " in text


def is_family(family: str, text: str) -> bool:
    return bullets_style(text) if family == "bullets" else not bullets_style(text)


class FamilyJudge:
    """A judge that prefers its own family's house style: two extra points for it.

    Stands for a judge model grading answers written by a model of its own family — it
    recognises the style, not the quality. `family` is "bullets" (opens with a stock phrase,
    lists in bullets) or "prose".
    """

    def __init__(self, family: str = "bullets", bonus: int = 2) -> None:
        if family not in ("bullets", "prose"):
            raise ValueError(f"family must be 'bullets' or 'prose', got {family!r}")
        self.family = family
        self.bonus = bonus

    def score(self, task: str, answer: str, reference: str) -> str:
        steady = round(10 * grounding(answer, reference))
        own = is_family(self.family, answer)
        return str(min(10, steady + (self.bonus if own else 0)))

    def compare(self, task: str, first: str, second: str) -> str:
        return SteadyJudge().compare(task, first, second)


def bullets_family_judge() -> FamilyJudge:
    """A judge of the bullets family (for --judge fakes.judges:bullets_family_judge)."""
    return FamilyJudge("bullets")


class JsonJudge:
    """The steady judge answering in strict JSON: {"score": 7, "reason": "..."}."""

    def score(self, task: str, answer: str, reference: str) -> str:
        value = int(SteadyJudge().score(task, answer, reference))
        return json.dumps({"score": value, "reason": f"{value} of 10 reference words found"})

    def compare(self, task: str, first: str, second: str) -> str:
        return SteadyJudge().compare(task, first, second)


# <<<
# >>> stage 11
class PeopleJudge:
    """A judge that agrees with people on every calibration answer: no real judge does.

    score: the person's score of a calibration answer, and of either twin of it (padding and
    cutting change no fact, so a person would score them alike); any other text as the steady
    judge scores it. compare: the answer people scored higher wins, in either order. It is
    the mirrored half of the certified gate: a judge that good is certified even on 48 labels.
    """

    def __init__(self) -> None:
        from pathlib import Path

        fixtures = Path(__file__).resolve().parents[1] / "fixtures"
        cases = json.loads((fixtures / "calibration.json").read_text(encoding="utf-8"))
        twins = json.loads((fixtures / "twins.json").read_text(encoding="utf-8"))
        person = {case["id"]: case["human_score"] for case in cases}
        self.people = {case["answer"]: case["human_score"] for case in cases}
        for twin in twins:
            self.people |= {twin[form]: person[twin["id"]] for form in ("padded", "concise")}

    def score(self, task: str, answer: str, reference: str) -> str:
        found = self.people.get(answer)
        return SteadyJudge().score(task, answer, reference) if found is None else str(found)

    def compare(self, task: str, first: str, second: str) -> str:
        if first in self.people and second in self.people:
            return _verdict(self.people[first], self.people[second])
        return SteadyJudge().compare(task, first, second)


# <<<
# >>> stage 16


class VersionedJudge:
    """A judge behind a provider's model name, which the provider updates without notice.

    Version 1 grades as the people judge does (a judge the gate can certify), or as `like`.
    Version 2, under the same `model` name, also pays a point for every 60 characters: what a
    silent update can do to an instrument that was calibrated before it.
    """

    def __init__(self, version: int = 1, model: str = "shop-judge", like: type = PeopleJudge):
        self.version = version
        self.model = model  # what the provider calls it, in both versions
        self.like = like  # the judge its first version grades as

    def score(self, task: str, answer: str, reference: str) -> str:
        first = int(self.like().score(task, answer, reference))
        return str(first if self.version == 1 else min(10, first + len(answer) // 60))

    def compare(self, task: str, first: str, second: str) -> str:
        return str(self.like().compare(task, first, second))


def updated_judge() -> VersionedJudge:
    """The same judge after its provider's update (--judge fakes.judges:updated_judge)."""
    return VersionedJudge(version=2)


def successor_judge() -> VersionedJudge:
    """The provider's next model, under its own name (--judge fakes.judges:successor_judge):
    it grades as the first did, which its gate shows answer by answer before it is trusted."""
    return VersionedJudge(model="shop-judge-2")


def lighter_judge() -> VersionedJudge:
    """The provider's smaller model, under its own name (--judge fakes.judges:lighter_judge):
    it grades as the steady judge does, and so agrees with people less often than the first."""
    return VersionedJudge(model="shop-judge-mini", like=SteadyJudge)


# <<<
