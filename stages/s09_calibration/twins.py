"""Twins: each graded answer made longer and shorter, with nothing added.

fixtures/twins.json holds what fakes/padder.py makes of every case: a padded twin (the
question restated, the answer, a summary in other words) and a concise twin (only the
sentences with content). Whatever a judge scores differently between an answer and its twin
is then the length, not the content — provided the twin adds no fact. The loader holds
*every* twin to that, not a sample: no figure, no named item, no fact and no word of a fact
that the original answer lacks; and a concise twin loses no fact the original states.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from stages.s01_model.cli import FIXTURES
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import load_json
from stages.s09_calibration.calibration import CalCase

TWINS_FILE = FIXTURES / "twins.json"


@dataclass(frozen=True)
class Twins:
    id: str  # the case they were made from
    padded: str
    concise: str


def load_twins(cases: list[CalCase], path: Path = TWINS_FILE) -> dict[str, Twins]:
    """Read the twins of every case, by case id; a missing or unfaithful twin is an error."""
    data = load_json(path)
    texts = ("id", "padded", "concise")
    if not isinstance(data, list) or not all(
        isinstance(raw, dict) and all(isinstance(raw.get(key), str) for key in texts)
        for raw in data
    ):
        raise CourseInputError(f"{path}: expected a list of objects, each with {', '.join(texts)}")
    twins = {raw["id"]: Twins(raw["id"], raw["padded"], raw["concise"]) for raw in data}
    for case in cases:
        if case.id not in twins:
            raise CourseInputError(f"{path}: no twins for case {case.id!r}")
        if problems := twin_problems(case, twins[case.id]):
            raise CourseInputError(f"{path}: twins of {case.id!r}: {problems[0]}")
    return twins


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def figures(text: str) -> set[str]:
    return set(re.findall(r"\d+(?:[.,]\d+)?", text))


def named_items(text: str) -> set[str]:
    """Capitalised words that do not open a sentence or a line (but "I"): names, ids, carriers."""
    found = set()
    for match in re.finditer(r"\b[A-Z][\w-]*", text):
        before = text[: match.start()].rstrip(" \"'(-")
        if before and before[-1] not in ".!?:\n" and match.group() != "I":
            found.add(match.group())
    return found


def added_facts(case: CalCase, twin: str) -> list[str]:
    """What a twin states that the original answer does not: it must be nothing."""
    original = case.answer
    added = [f"figure {f}" for f in sorted(figures(twin) - figures(original))]
    allowed_names = named_items(original) | set(re.findall(r"[\w-]+", case.question))
    added += [f"name {n}" for n in sorted(named_items(twin) - allowed_names)]
    added += [f"fact {f!r}" for f in case.facts if f in twin and f not in original]
    fact_words = words(case.reference)
    added += [f"fact word {w!r}" for w in sorted((words(twin) - words(original)) & fact_words)]
    return added


def twin_problems(case: CalCase, twins: Twins) -> list[str]:
    """Every way these twins break the rule; empty when they keep it."""
    problems = [f"padded twin adds {a}" for a in added_facts(case, twins.padded)]
    problems += [f"concise twin adds {a}" for a in added_facts(case, twins.concise)]
    lost = [f for f in case.facts if f in case.answer and f not in twins.concise]
    return problems + [f"concise twin loses fact {f!r}" for f in lost]
