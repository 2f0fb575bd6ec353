"""Padded twins made by a model, and held to stage 9's rule before anyone trusts them.

Stage 9's twins come from a rule (fakes/padder.py). A team would ask a model instead: restate
the question at the top, sum the answer up at the bottom, add nothing. `pad` asks the judge's
model for a twin of each calibration answer and checks every twin: it must keep the answer
as written (words and order; spacing aside), and pass stage 9's check (no figure, no name,
no fact or word of a fact the original lacks). Ten of those that pass, chosen by seed, go to
a file for a person to read. How many it rejects is why every twin is checked: a model told
to keep the answer and add nothing does not always obey.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from pathlib import Path

from stages.s01_model.cli import ROOT
from stages.s01_model.files import dumps, write_text
from stages.s08_eval.judge import UNAVAILABLE
from stages.s09_calibration.calibration import CalCase
from stages.s09_calibration.twins import added_facts
from stages.s12_real_judge.client import OpenAIJudge
from stages.s12_real_judge.prefetch import prefetch
from stages.s13_local_model.schemas import StructuredSettings

PAD = """Rewrite the answer below for a customer. Start with one paragraph that restates the
customer's question. Then give the answer exactly as written. End with one paragraph that sums
the answer up in other words. Add no fact, figure, name or action that the answer does not
already contain.

Question: {question}

Answer: {answer}"""
PAD_TOKENS = 300  # room for two short paragraphs around the answer
REVIEW_FILE = ROOT / "reports" / "s13_model_twins.jsonl"
SAMPLE, SEED = 10, 10  # twins for a person to read, and the seed that picks them


@dataclass(frozen=True)
class Padded:
    case: CalCase
    twin: str | None  # None when the model gave no reply
    problems: tuple[str, ...]  # why the twin cannot stand in for the answer; empty if it can

    @property
    def passed(self) -> bool:
        return self.twin is not None and not self.problems


def messages(case: CalCase) -> list[dict[str, str]]:
    return [{"role": "user", "content": PAD.format(question=case.question, answer=case.answer)}]


def pad(judge: OpenAIJudge, cases: list[CalCase]) -> list[Padded]:
    """A twin of every answer, asked for all at once, each checked against its original."""
    settings = replace(judge.settings, max_tokens=PAD_TOKENS)
    if isinstance(settings, StructuredSettings):  # a twin is text, not a schema's object
        settings = replace(settings, structured="")
    judge.settings = settings
    prefetch(judge, [(messages(case), "text") for case in cases])
    padded = []
    for case in cases:
        try:
            twin = judge.ask(messages(case), shape="text")
        except UNAVAILABLE:
            padded.append(Padded(case, None, ()))
            continue
        padded.append(Padded(case, twin, problems(case, twin)))
    return padded


def problems(case: CalCase, twin: str) -> tuple[str, ...]:
    """The answer changed or not padded at all, and whatever the twin adds (stage 9's check)."""
    answer, text = " ".join(case.answer.split()), " ".join(twin.split())
    added = tuple(f"adds {what}" for what in added_facts(case, twin))
    if answer not in text:
        return ("changes the answer", *added)
    return added if text != answer else ("pads nothing",)


def summary(padded: list[Padded]) -> list[str]:
    """What the check found, in a few lines: counts first, then the first few rejections."""
    rejected = [p for p in padded if p.twin is not None and p.problems]
    silent = sum(p.twin is None for p in padded)
    lines = [
        f"model-made twins: {len(rejected)} of {len(padded) - silent} rejected "
        f"({sum(p.problems[0] == 'changes the answer' for p in rejected)} change the answer, "
        f"{sum(p.problems == ('pads nothing',) for p in rejected)} pad nothing, "
        f"{sum(any(x.startswith('adds') for x in p.problems) for p in rejected)} add a fact); "
        f"{silent} not made: the model gave no reply"
    ]
    lines += [f"  {p.case.id}: {', '.join(p.problems[:3])}" for p in rejected[:5]]
    return lines


def review(padded: list[Padded], path: Path = REVIEW_FILE) -> int:
    """Write SAMPLE of the twins that passed, chosen by SEED, for a person to read."""
    passed = [p for p in padded if p.passed]
    chosen = sorted(random.Random(SEED).sample(range(len(passed)), min(SAMPLE, len(passed))))
    rows = [
        {"id": p.case.id, "question": p.case.question, "answer": p.case.answer, "twin": p.twin}
        for p in (passed[n] for n in chosen)
    ]
    write_text(path, "".join(dumps(row) + "\n" for row in rows))
    return len(rows)
