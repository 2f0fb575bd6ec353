"""Rubrics: what the judge is told to grade, put in front of the question it sees.

    open    "Rate the answer's overall quality" — leaves the judge to decide what quality is,
            and a judge that likes length will find it there.
    facts   a checklist of the required facts, each yes or no, with the instruction that
            length is not evidence of quality.

Changing the rubric is the cheapest fix to try, and its effect is measured, not assumed: the
report shows the same measurements under both rubrics.
"""

from __future__ import annotations

from stages.s01_model.model import Name

CHECKLIST_RULE = "Length is not evidence of quality."


class Rubric(Name):
    OPEN = "open"
    FACTS = "facts"


def prompt(rubric: str, question: str, facts: tuple[str, ...]) -> str:
    """The task text the judge receives: the rubric, then the question."""
    if rubric == Rubric.FACTS:
        checklist = "\n".join(f"- does the answer state: {fact}? (yes or no)" for fact in facts)
        instructions = (
            "Check each required fact below. Score 10 times the share of facts the answer "
            f"states. {CHECKLIST_RULE}\n{checklist}"
        )
    else:
        instructions = "Rate the answer's overall quality from 0 to 10."
    return f"{instructions}\n\nQuestion: {question}"
