"""Audit scores an engineer already has: a CSV or JSONL file, columns named on the command line.

What it reads for the measures of summary.py: the length confound (does the score follow
the answer's length?) and, when human labels are there, kappa at the gate with a review
queue of the disagreements. Each measure ends found, not found or not evaluated (stage 8's
findings.py), on the evidence of the rows it could use out of the rows in the file.

Every data row is either measured or named (rows.py and cells.py hold the rules of
reading). A row that breaks a rule is counted, and written with its number and its problem to
the skipped file; the text report lists the first few. So rows measured + rows skipped ==
data rows in the file. The review queue and the skipped file are written to temporary files,
and renamed into place only when the whole file was read: an audit stopped by an error
leaves no file behind. The file is streamed: a million rows fit in memory.
"""

from __future__ import annotations

import math
import os
from array import array
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TextIO

from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import dumps
from stages.s11_correction.correction import Tally
from stages.s14_audit.cells import Rules, Unusable, a_flag, blank, flags_at_the_gate
from stages.s14_audit.rows import Columns, name_row, read_each, rows_of


class Outputs(NamedTuple):
    """Where an audit writes: the disagreements for a person, every row it skipped, and the
    report (its JSON, as --json prints it)."""

    review: Path
    skipped: Path
    report: Path


def outputs_for(path: Path, folder: Path) -> Outputs:
    kinds = ("review.jsonl", "skipped.jsonl", "json")
    return Outputs(*(folder / f"audit-{path.stem}.{kind}" for kind in kinds))


@dataclass
class Audit:
    """What reading one file found: its rows, the measured pairs, the table at the gate."""

    out: Outputs
    data_rows: int = 0  # every data row in the file, measured or not
    rows: int = 0  # measured
    skipped: int = 0  # named in the skipped file
    problems: list[str] = field(default_factory=list)  # the first SHOWN_BAD_ROWS, for the report
    scores: array[float] = field(default_factory=lambda: array("d"))
    lengths: array[float] = field(default_factory=lambda: array("d"))
    table: list[list[int]] = field(default_factory=lambda: [[0, 0], [0, 0]])  # [human][judge]
    disagreements: int = 0
    unlabelled: int = 0  # measured rows with no human label (a blank cell, a JSON null)
    unlabelled_passed: int = 0  # ... that the judge passed
    flags: int = 0  # labels from 0 to 1: if all are, they are flags, not scores

    def tally(self) -> Tally:
        (tn, fp), (fn, tp) = self.table
        return Tally(((tn, fp), (fn, tp)), self.unlabelled_passed, self.unlabelled)


# ---- the audit ----------------------------------------------------------------------------


def audit(
    path: Path,
    columns: Columns,
    gate: float,
    folder: Path,
    encoding: str | None = None,
    delimiter: str | None = None,
) -> Audit:
    """Read every data row of `path`; write the review queue and the skipped rows to `folder`
    (named by `outputs_for`) when the whole file was read, and nothing when it was not."""
    if not math.isfinite(gate):
        raise CourseInputError(f"--gate {gate!r}: expected a finite number")
    found = Audit(outputs_for(path, folder))
    with (
        rows_of(path, columns, encoding, delimiter) as (rows, rules),
        written_on_success(found.out) as (queue, skipped),
    ):
        for row, line, problem in read_each(
            rows, lambda row, record: _take(found, record, columns, rules, gate, queue, row)
        ):
            found.data_rows += 1
            if problem is not None:
                found.skipped += 1
                skipped.write(dumps({"row": row, "line": line, "problem": problem}) + "\n")
                name_row(found.problems, row, line, problem)
        if gate > 1 and 0 < found.flags == found.tally().labelled:  # no file is written
            raise CourseInputError(flags_at_the_gate(str(path), gate))  # the gate reads scores too
    return found


def _take(
    found: Audit,
    record: dict[str, Any],
    columns: Columns,
    rules: Rules,
    gate: float,
    queue: TextIO,
    row: int,
) -> None:
    """Read one record into the audit, or raise Unusable saying why it cannot be used."""
    score = rules.number(record[columns.score], "score", columns.score)
    if columns.answer:
        length = float(len(rules.answer(record[columns.answer], columns.answer)))
    else:
        name = str(columns.length)
        length = rules.number(record[name], "length", name)
        if length < 0:
            raise Unusable(f"length {length:g} in {name!r} is negative: expected 0 or more")
    if columns.human and blank(record[columns.human]):
        found.unlabelled += 1
        found.unlabelled_passed += score >= gate
    elif columns.human:
        person = rules.label(record[columns.human], columns.human, gate)
        found.flags += a_flag(record[columns.human])
        judge = score >= gate
        found.table[int(person)][int(judge)] += 1
        if person != judge:
            found.disagreements += 1
            queue.write(dumps({"row": row, "judge_pass": judge, "record": record}) + "\n")
    found.rows += 1
    found.scores.append(score)
    found.lengths.append(length)


# ---- outputs written only on success -----------------------------------------------------


@contextmanager
def written_on_success(out: Outputs) -> Iterator[tuple[TextIO, TextIO]]:
    """Temporary files beside the outputs, renamed into place only when the block succeeds.

    On any error, KeyboardInterrupt included, they are removed: an audit that did not finish
    leaves no empty or partial file behind (an older complete one stays as it was).
    """
    names = [t.with_name(f".{t.name}.{os.getpid()}.tmp") for t in (out.review, out.skipped)]
    handles: list[TextIO] = []  # named before any is made: a signal between two is cleaned up
    try:
        for name in names:
            name.parent.mkdir(parents=True, exist_ok=True)
            handles.append(name.open("w", encoding="utf-8"))
        yield handles[0], handles[1]
        for handle, name, target in zip(handles, names, (out.review, out.skipped), strict=True):
            handle.close()
            name.replace(target)
    except BaseException as error:
        for handle in handles:
            with suppress(OSError):  # what it could not flush goes with it
                handle.close()
        for name in names:
            name.unlink(missing_ok=True)
        if isinstance(error, OSError):  # a full disk, a folder that refuses the files
            why = f"cannot write the audit's files ({error.strerror}); older ones are as they were"
            raise CourseInputError(f"{out.review.parent}: {why}") from None
        raise
