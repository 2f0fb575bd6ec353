"""Policy search: score every passage against the question, keep those above a threshold.

The score is deliberately simple: the share of the question's content words that appear in
the passage (0.0 to 1.0). What matters for the lesson is the threshold. A search always has
a best passage; only the threshold says whether the best is good enough to answer from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from stages.s01_model.cli import FIXTURES
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import load_json

POLICY_FILE = FIXTURES / "policies.json"
THRESHOLD = 0.6  # below this share of the question's words, a passage does not answer it
STOPWORDS = frozenset(
    "a an and are as at be by can do does for from how i if in is it my of on or the"
    " to what when where which who why will with you your long much take after now get"
    " any there".split()
)


@dataclass(frozen=True)
class Passage:
    id: str
    title: str
    text: str


@dataclass(frozen=True)
class Hit:
    passage: Passage
    score: float


def words(text: str) -> set[str]:
    """The content words of a text: lower-cased, stopwords dropped, crudely stemmed."""
    return {stem(word) for word in re.findall(r"[a-z0-9]+", text.lower()) if word not in STOPWORDS}


def stem(word: str) -> str:
    """Fold the commonest endings so that `refunds`, `refunded` and `refund` match."""
    if len(word) > 4 and word.endswith("ed"):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def score(question: str, passage: Passage) -> float:
    """Share of the question's content words found in the passage; 0.0 for an empty question."""
    asked = words(question)
    if not asked:
        return 0.0
    return len(asked & words(f"{passage.title} {passage.text}")) / len(asked)


def search(question: str, passages: list[Passage], threshold: float = THRESHOLD) -> list[Hit]:
    """Passages scoring at least `threshold`, best first (ties keep the corpus order)."""
    hits = [Hit(passage, score(question, passage)) for passage in passages]
    return sorted(
        (hit for hit in hits if hit.score >= threshold), key=lambda hit: hit.score, reverse=True
    )


def load_policies(path: Path = POLICY_FILE) -> list[Passage]:
    """Read the policy corpus; a passage without id, title or text is an error naming it."""
    data = load_json(path)
    if not isinstance(data, list):
        raise CourseInputError(f"{path}: expected a list of passages, got {type(data).__name__}")
    passages = []
    for number, raw in enumerate(data, start=1):
        missing = [
            key
            for key in ("id", "title", "text")
            if not isinstance(raw, dict)
            or not isinstance(raw.get(key), str)
            or not raw[key].strip()
        ]
        if missing:
            raise CourseInputError(f"{path}: passage {number}: missing or empty {missing[0]!r}")
        passages.append(Passage(raw["id"], raw["title"], raw["text"]))
    return passages
