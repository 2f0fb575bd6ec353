"""Rubrics: what the judge is told to grade, put in front of the question it sees.

    open    "Rate the answer's overall quality" — leaves the judge to decide what quality is,
            and a judge that likes length will find it there.
    facts   a checklist of the required facts, one item a line, each yes or no, with the
            instruction that length is not evidence of quality.

Changing the rubric is the cheapest fix to try, and its effect is measured, not assumed: the
report shows the same measurements under both rubrics. With the course's fakes that
measurement is a simulation — the biased fake is built to obey the checklist — so the
numbers show what a fix looks like; only a real model shows whether it works.
"""

from __future__ import annotations

from stages.s01_model.model import Name
from stages.s09_calibration.calibrate import open_task

CHECKLIST_RULE = "Length is not evidence of quality."
CHECKLIST_ITEM = "- does the answer state: {fact}? (yes or no)"


class Rubric(Name):
    OPEN = "open"  # overall quality, in the judge's own terms
    FACTS = "facts"  # a yes-or-no checklist of the required facts


def prompt(rubric: Rubric, question: str, facts: tuple[str, ...]) -> str:
    """The task text the judge receives: the rubric, then the question (the open rubric is
    stage 9's question)."""
    if rubric == Rubric.OPEN:
        return open_task(question, facts)
    checklist = "\n".join(CHECKLIST_ITEM.format(fact=fact) for fact in facts)
    instructions = (
        "Check each required fact below. Score 10 times the share of facts the answer "
        f"states. {CHECKLIST_RULE}\n{checklist}"
    )
    return f"{instructions}\n\nQuestion: {question}"
