"""The calibration set: answers a person has graded, in two families of house style.

Each case holds a question, an answer from one family (`bullets` or `prose`), the facts a
correct answer states, and a human's score (1-10) and pass/fail at the gate. The human
labels were written by reading each answer, not by running a judge: they are what a judge
is calibrated against. The two answers to one question form a pair: the same facts, the
same human score, nearly the same length, and each in its own family's style.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from stages.s01_model.cli import FIXTURES
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import load_json
from stages.s01_model.model import Name
from stages.s08_eval.levels import PASS_MARK  # the human labels use stage 8's pass mark

CALIBRATION_FILE = FIXTURES / "calibration.json"


class Family(Name):
    BULLETS = "bullets"  # a stock opener, then the content as a bullet list
    PROSE = "prose"  # plain sentences


@dataclass(frozen=True)
class CalCase:
    id: str
    pair: str  # the question's id: its two answers share it
    family: Family
    question: str
    answer: str
    facts: tuple[str, ...]  # what a correct answer states
    human_score: int
    human_pass: bool
    mode: str  # its failure mode: wordy-wrong, terse, restates, hedges, partial, ...

    @property
    def reference(self) -> str:
        """What the judge grades against: the facts a correct answer states."""
        return "; ".join(self.facts)


# each field's type in the JSON file (facts is a list there, a tuple in a case)
TEXTS = ("id", "pair", "family", "question", "answer", "mode")
FIELDS = dict.fromkeys(TEXTS, str) | {"facts": list, "human_score": int, "human_pass": bool}


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
            got = raw.get(key)
            if not isinstance(got, kind) or (kind is int and isinstance(got, bool)):
                raise CourseInputError(f"{where}: {key} must be {kind.__name__}, got {got!r}")
        if raw["family"] not in set(Family):
            known = ", ".join(Family)
            raise CourseInputError(f"{where}: family {raw['family']!r} is not one of {known}")
        score, passed = raw["human_score"], raw["human_pass"]
        if not 1 <= score <= 10 or passed != (score >= PASS_MARK):
            raise CourseInputError(
                f"{where}: human_score {score} and human_pass {passed} disagree at the gate of "
                f"{PASS_MARK}"
            )
        family, facts = Family(raw["family"]), tuple(raw["facts"])
        cases.append(CalCase(**{**raw, "family": family, "facts": facts}))
    return cases


def families(cases: list[CalCase]) -> list[tuple[CalCase, CalCase]]:
    """The (bullets, prose) answers to each question that has both."""
    by_pair: dict[str, dict[Family, CalCase]] = {}
    for case in cases:
        by_pair.setdefault(case.pair, {})[case.family] = case
    both = [members for members in by_pair.values() if len(members) == 2]
    return [(members[Family.BULLETS], members[Family.PROSE]) for members in both]
