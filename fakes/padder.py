"""A deterministic stand-in for the model that would write padded and concise twins.

padded(question, answer): three parts, as a model asked to "be more thorough" writes them —
    1) the question restated, prepended:   "You asked: <the question>"
    2) the answer, unchanged;
    3) a summary of the answer in other words, appended: "In short: " and the answer's main
       sentence (the first with a figure, else the longest), reworded through a fixed table
       of filler synonyms.
concise(answer, facts): only the sentences (or bullet lines) that carry content — a fact,
    a figure, a capitalised name, or a word of a fact — with stock openers and filler gone;
    the first sentence when none does.

Neither adds a fact: the restatement uses only the question's words (which share none with
the facts), the summary only the answer's own words and the synonyms below (none of which is
a fact word). stages/s09_calibration/twins.py holds every twin to that.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

STOCK_OPENERS = ("Great question!",)
SYNONYMS = {
    "you can": "it is possible to",
    "we will": "the shop will",
    "we": "the shop",
    "please": "kindly",
    "within": "inside",
    "just": "simply",
    "your": "the",
}
_SYNONYM = re.compile(r"\b(" + "|".join(re.escape(k) for k in SYNONYMS) + r")\b", re.IGNORECASE)


def pieces(answer: str) -> list[str]:
    """The answer's sentences and bullet lines, without bullet markers, stock openers dropped."""
    found = []
    for line in answer.splitlines():
        text = line.strip().removeprefix("- ").strip()
        for opener in STOCK_OPENERS:
            text = text.removeprefix(opener).strip()
        found += [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]
    return found


def reword(text: str) -> str:
    """Swap filler words for their synonyms; every other word stays as it was."""
    return _SYNONYM.sub(lambda m: SYNONYMS[m.group(0).lower()], text)


def padded(question: str, answer: str) -> str:
    restated = f"You asked: {question.strip()}"
    parts = pieces(answer) or [answer.strip()]
    # the summary restates the piece that says most: the first with a figure, else the longest
    main = next((p for p in parts if re.search(r"\d", p)), max(parts, key=len))
    summary = reword(main).rstrip(" :;,")
    if not summary.endswith((".", "!", "?")):
        summary += "."
    return f"{restated}\n{answer}\nIn short: {summary}"


def carries_content(piece: str, facts: Sequence[str]) -> bool:
    fact_words = {w for fact in facts for w in re.findall(r"[a-z0-9]+", fact.lower())}
    words = set(re.findall(r"[a-z0-9]+", piece.lower()))
    named = re.search(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-z]*[A-Z0-9]\w*|\b[A-Z]\d+", piece)
    return (
        any(fact in piece for fact in facts)
        or bool(re.search(r"\d", piece))
        or named is not None
        or bool(words & fact_words)
    )


def concise(answer: str, facts: Sequence[str]) -> str:
    parts = pieces(answer)
    kept = [piece for piece in parts if carries_content(piece, facts)]
    return " ".join(kept or parts[:1] or [answer.strip()])
