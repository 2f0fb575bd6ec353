"""Canaries: a few fixed questions whose replies were recorded when the judge was calibrated.

A provider can update a model and keep its name: the calibration still on file then measured
an instrument that is gone. `canary` puts the same questions again — eight scorings and four
comparisons from the calibration set — and compares each reply, as raw text, with the one
recorded for that instrument (its model name, or its SPEC). More changed replies than the
threshold: the instrument changed since the recording, and its calibration is stale. A
question it did not answer is not "unchanged": it is unscored, and with too few answered the
check is not evaluated.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from stages.s01_model.cli import FIXTURES, short
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import dumps, write_text
from stages.s08_eval.findings import Evidence, Finding, decide
from stages.s08_eval.judge import Judge, read
from stages.s08_eval.specs import JudgeChoice
from stages.s09_calibration.calibration import families, load_calibration
from stages.s09_calibration.measures import Measure, said
from stages.s10_agreement.rubrics import Rubric, prompt
from stages.s12_real_judge.judges import JudgeRequest
from stages.s13_local_model.judges import resolve_judge
from stages.s13_local_model.recording import text_rows

CANARIES = FIXTURES / "canaries.jsonl"
FIELDS = ("instrument", "id", "reply")  # a row of the canaries file
THRESHOLD = 0  # changed replies allowed: a deterministic instrument repeats itself exactly
Question = tuple[str, str, tuple[str, str, str]]  # id, judge method, its three texts


def questions() -> list[Question]:
    """Every sixth calibration answer to score, and the first four pairs to compare, each
    put exactly as calibration puts it (the open rubric)."""
    cases = load_calibration()
    found = [
        (
            f"score {c.id}",
            "score",
            (prompt(Rubric.OPEN, c.question, c.facts), c.answer, c.reference),
        )
        for c in cases[::6]
    ]
    pairs = families(cases)[:4]
    return found + [
        (f"compare {b.pair}", "compare", (b.question, b.answer, p.answer)) for b, p in pairs
    ]


def replies(judge: Judge) -> dict[str, str]:
    """The judge's raw reply to each question it answered; an unavailable judge answers none."""
    answered = {}
    for qid, method, texts in questions():
        reading = read(partial(getattr(judge, method), *texts), lambda raw: raw)
        if reading.value is not None:
            answered[qid] = str(reading.value)
    return answered


def recorded(name: str, path: Path | None = None) -> dict[str, str]:
    """The replies recorded for the instrument called `name` (in CANARIES unless named)."""
    rows = text_rows(path or CANARIES, FIELDS)
    return {row["id"]: row["reply"] for row in rows if row["instrument"] == name}


def unfinished(name: str, answered: dict[str, str]) -> str | None:
    """Why these replies may not replace a recording: a question left unanswered (a judge
    that hung, or an endpoint that was down) would erase the reply recorded for it, and a
    judge that answered none would erase them all. None when every question was answered."""
    asked = [qid for qid, _, _ in questions()]
    missing = [qid for qid in asked if qid not in answered]
    if not missing:
        return None
    return (
        f"canary --record: {name} answered {len(asked) - len(missing)} of {len(asked)} "
        f"questions (not {missing[0]!r}); nothing recorded, {short(CANARIES)} kept as it was"
    )


def record(name: str, answered: dict[str, str], path: Path | None = None) -> str:
    """Replace the instrument's recorded replies with these; the others are kept."""
    path = path or CANARIES
    rows = [row for row in text_rows(path, FIELDS) if row["instrument"] != name]
    rows += [{"instrument": name, "id": qid, "reply": reply} for qid, reply in answered.items()]
    rows.sort(key=lambda row: (row["instrument"], row["id"]))
    write_text(path, "".join(dumps(row) + "\n" for row in rows))
    return f"{len(answered)} canary replies of {name} recorded in {short(path)}"


def asked_anew(
    spec: str, config: Path | None, timeout_s: float | None, stack: ExitStack
) -> JudgeChoice:
    """The judge a SPEC names, with stage 12's journal off: a reply read back from the
    journal is the reply from before the update, by construction, and would hide it."""
    return resolve_judge(JudgeRequest(spec, config, use_journal=False, timeout_s=timeout_s), stack)


def instrument(judge: Judge, spec: str) -> str:
    """What the canaries are recorded under: the model's name, which a provider's update
    keeps, else the SPEC. A judge behind stage 12's guard is named by the judge inside."""
    return str(getattr(getattr(judge, "judge", judge), "model", spec))


def must_be_recorded(name: str) -> None:
    """Refuse, before a question is asked, to check an instrument nothing was recorded for."""
    if not recorded(name):
        raise CourseInputError(f"canary: nothing recorded for {name!r}; record it with --record")


@dataclass(frozen=True)
class Canaries(Measure):
    instrument: str
    changed: int
    threshold: int
    which: tuple[str, ...]  # the questions whose reply changed


def check(name: str, answered: dict[str, str], threshold: int = THRESHOLD) -> Canaries:
    """Found when more replies than `threshold` differ from the recorded ones."""
    must_be_recorded(name)
    before = recorded(name)
    usable = [qid for qid in before if qid in answered]
    which = tuple(qid for qid in usable if answered[qid] != before[qid])
    outcome = decide(Evidence(len(usable), len(before)), len(which) > threshold)
    differ = f"{len(which)} of {len(usable)} replies differ from the recording"
    verdict = f"unchanged: {differ}, at most {threshold} allowed"
    if outcome.state == Finding.FOUND:
        verdict = f"changed since it was recorded: {differ}"
    return Canaries(outcome, said(outcome, verdict), name, len(which), threshold, which)
