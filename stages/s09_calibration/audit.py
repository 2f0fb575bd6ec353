"""Audit scores an engineer already has: a CSV or JSONL file, columns named on the command line.

What it measures: the length confound (does the score follow the answer's length?), and,
when human labels are there, kappa at the gate and a review queue of the disagreements.
It streams the file, so a million rows fit in memory; a row it cannot read is reported with
its row number and counted as skipped — never dropped without a word.
"""

from __future__ import annotations

import csv
import json
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from stages.s01_model.errors import CourseInputError
from stages.s09_calibration.stats import TRUSTWORTHY, kappa_from_table, pearson, spearman

SHOWN_BAD_ROWS = 10  # how many bad rows are described one by one; all are counted
PASS_WORDS = {"pass": True, "passed": True, "true": True, "yes": True,
              "fail": False, "failed": False, "false": False, "no": False}  # fmt: skip


@dataclass(frozen=True)
class Columns:
    score: str
    answer: str | None = None
    length: str | None = None
    human: str | None = None


@dataclass
class Audit:
    rows: int = 0
    skipped: int = 0
    problems: list[str] = field(default_factory=list)
    scores: array[float] = field(default_factory=lambda: array("d"))
    lengths: array[float] = field(default_factory=lambda: array("d"))
    table: list[list[int]] = field(default_factory=lambda: [[0, 0], [0, 0]])  # [human][judge]
    disagreements: int = 0


def records(path: Path, handle: TextIO) -> Iterator[tuple[int, dict[str, Any] | None, str]]:
    """(row number, record or None, problem) for each data row of a CSV or JSONL file."""
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                yield number, None, f"not JSON ({error.msg})"
                continue
            if isinstance(record, dict):
                yield number, record, ""
            else:
                yield number, None, "not a JSON object"
        return
    reader = csv.DictReader(handle)
    if reader.fieldnames is None:
        raise CourseInputError(f"{path}: empty file, no header row")
    for number, record in enumerate(reader, start=2):  # row 1 is the header
        yield number, record, ""


def human_pass(value: Any, gate: float) -> bool:
    """A human label: a score (passes at the gate) or a pass/fail word."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in PASS_WORDS:
        return PASS_WORDS[text]
    return float(text) >= gate  # ValueError for anything else: a bad row


def audit(path: Path, columns: Columns, gate: float, queue: TextIO | None) -> Audit:
    found = Audit()
    try:
        handle = path.open(encoding="utf-8", newline="")
    except OSError as error:
        raise CourseInputError(f"{path}: cannot read ({error.strerror})") from None
    with handle:
        for number, record, problem in records(path, handle):
            if record is not None:
                problem = _take(found, record, columns, gate, queue, number)
            if problem:
                found.skipped += 1
                if len(found.problems) < SHOWN_BAD_ROWS:
                    found.problems.append(f"row {number}: {problem}")
    return found


def _take(
    found: Audit, record: dict[str, Any], columns: Columns, gate: float,
    queue: TextIO | None, number: int,
) -> str:  # fmt: skip
    """Read one record into the audit; return why it cannot be used, or ''."""
    needed = [columns.score, columns.answer or columns.length, columns.human]
    missing = [name for name in needed if name and record.get(name) in (None, "")]
    if missing:
        return f"no value in column {missing[0]!r}"
    try:
        score = float(record[columns.score])
    except (TypeError, ValueError):
        return f"score {record[columns.score]!r} is not a number"
    if columns.answer:
        length = float(len(str(record[columns.answer])))
    else:
        try:
            length = float(record[str(columns.length)])
        except (TypeError, ValueError):
            return f"length {record[str(columns.length)]!r} is not a number"
    if columns.human:
        try:
            person = human_pass(record[columns.human], gate)
        except ValueError:
            return f"human label {record[columns.human]!r} is neither a score nor pass/fail"
        judge = score >= gate
        found.table[int(person)][int(judge)] += 1
        if person != judge:
            found.disagreements += 1
            if queue is not None:
                queue.write(json.dumps({"row": number, **record, "judge_pass": judge}) + "\n")
    found.rows += 1
    found.scores.append(score)
    found.lengths.append(length)
    return ""


def summary(found: Audit, columns: Columns) -> dict[str, Any]:
    result: dict[str, Any] = {
        "rows": found.rows,
        "skipped": found.skipped,
        "problems": found.problems,
        "length_confound": {
            "pearson": pearson(found.lengths, found.scores),
            "spearman": spearman(found.lengths, found.scores),
        },
    }
    if columns.human:
        kappa = kappa_from_table(found.table)
        result["calibration"] = {
            "kappa": kappa.kappa,
            "observed": kappa.observed,
            "expected": kappa.expected,
            "trustworthy": kappa.kappa is not None and kappa.kappa >= TRUSTWORTHY,
            "disagreements": found.disagreements,
        }
    return result
