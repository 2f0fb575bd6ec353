"""The calibration set: answers a person has graded, and the twins made from them.

Each case holds a question, an answer from one of two families of house style, the facts a
correct answer states, and a human's score (1-10) and pass/fail at the gate. The human
labels were written by reading each answer, not by running a judge; they are what a judge
is calibrated against.

Twins (fixtures/twins.json) come from fakes/padder.py: a padded twin (question restated,
answer, summary in other words) and a concise twin (only the sentences with content). The
validator holds every twin, not a sample, to one rule: it adds no fact — no figure, no named
item, no fact and no word of a fact that the original answer does not have.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fakes.padder import concise, padded
from stages.s01_model.cli import FIXTURES
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import load_json

CALIBRATION_FILE = FIXTURES / "calibration.json"
TWINS_FILE = FIXTURES / "twins.json"
GATE = 7  # a score of at least this passes; the human labels use the same gate
FAMILIES = ("bullets", "prose")
FIELDS = {
    "id": str,
    "pair": str,
    "family": str,
    "question": str,
    "answer": str,
    "facts": list,
    "human_score": int,
    "human_pass": bool,
    "mode": str,
}


@dataclass(frozen=True)
class CalCase:
    id: str
    pair: str
    family: str
    question: str
    answer: str
    facts: tuple[str, ...]
    human_score: int
    human_pass: bool
    mode: str

    @property
    def reference(self) -> str:
        """What the judge grades against: the facts a correct answer states."""
        return "; ".join(self.facts)


@dataclass(frozen=True)
class Twins:
    id: str
    padded: str
    concise: str


def load_calibration(path: Path = CALIBRATION_FILE) -> list[CalCase]:
    """Read and check the calibration set; each problem names the file and the case."""
    data = load_json(path)
    if not isinstance(data, list):
        raise CourseInputError(f"{path}: expected a list of cases, got {type(data).__name__}")
    cases = []
    for number, raw in enumerate(data, start=1):
        where = f"{path}: case {raw.get('id', number) if isinstance(raw, dict) else number!r}"
        if not isinstance(raw, dict):
            raise CourseInputError(f"{where}: expected an object")
        for key, kind in FIELDS.items():
            if not isinstance(raw.get(key), kind) or (kind is int and isinstance(raw[key], bool)):
                raise CourseInputError(
                    f"{where}: {key} must be {kind.__name__}, got {raw.get(key)!r}"
                )
        if raw["family"] not in FAMILIES:
            raise CourseInputError(f"{where}: family {raw['family']!r} is not one of {FAMILIES}")
        if not 1 <= raw["human_score"] <= 10 or raw["human_pass"] != (raw["human_score"] >= GATE):
            raise CourseInputError(
                f"{where}: human_score {raw['human_score']} and human_pass {raw['human_pass']} "
                f"disagree at the gate of {GATE}"
            )
        cases.append(CalCase(**{**raw, "facts": tuple(raw["facts"])}))
    return cases


# -- twins ---------------------------------------------------------------------------------


def make_twins(cases: list[CalCase]) -> list[Twins]:
    return [
        Twins(case.id, padded(case.question, case.answer), concise(case.answer, list(case.facts)))
        for case in cases
    ]


def load_twins(path: Path = TWINS_FILE) -> dict[str, Twins]:
    data = load_json(path)
    if not isinstance(data, list):
        raise CourseInputError(f"{path}: expected a list of twins")
    return {raw["id"]: Twins(raw["id"], raw["padded"], raw["concise"]) for raw in data}


def write_twins(twins: list[Twins], path: Path = TWINS_FILE) -> None:
    rows = [{"id": t.id, "padded": t.padded, "concise": t.concise} for t in twins]
    path.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def figures(text: str) -> set[str]:
    return set(re.findall(r"\d+(?:[.,]\d+)?", text))


def named_items(text: str) -> set[str]:
    """Capitalised words that do not open a sentence or a line: names, order ids, carriers."""
    found = set()
    for match in re.finditer(r"\b[A-Z][\w-]*", text):
        before = text[: match.start()].rstrip(" \"'(-")
        if before and before[-1] not in ".!?:\n":
            found.add(match.group())
    return found


def fact_words(case: CalCase) -> set[str]:
    return {w for fact in case.facts for w in re.findall(r"[a-z0-9]+", fact.lower())}


def added_facts(case: CalCase, twin: str) -> list[str]:
    """What a twin states that the original answer does not: it must be nothing."""
    original = case.answer
    words = set(re.findall(r"[a-z0-9]+", original.lower()))
    twin_words = set(re.findall(r"[a-z0-9]+", twin.lower()))
    added = [f"figure {f}" for f in sorted(figures(twin) - figures(original))]
    allowed_names = named_items(original) | set(re.findall(r"[\w-]+", case.question))
    added += [f"name {n}" for n in sorted(named_items(twin) - allowed_names)]
    added += [f"fact {f!r}" for f in case.facts if f in twin and f not in original]
    added += [f"fact word {w!r}" for w in sorted((twin_words - words) & fact_words(case))]
    return added


def lost_facts(case: CalCase, twin: str) -> list[str]:
    """Facts the original answer states that the twin lost: a concise twin must lose none."""
    return [fact for fact in case.facts if fact in case.answer and fact not in twin]


def twin_problems(case: CalCase, twins: Twins) -> list[str]:
    problems = [f"padded twin adds {a}" for a in added_facts(case, twins.padded)]
    problems += [f"concise twin adds {a}" for a in added_facts(case, twins.concise)]
    problems += [f"concise twin loses fact {f!r}" for f in lost_facts(case, twins.concise)]
    return problems


def as_rows(cases: list[CalCase]) -> list[dict[str, Any]]:
    return [case.__dict__ for case in cases]
