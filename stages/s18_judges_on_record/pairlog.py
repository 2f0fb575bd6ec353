"""Your own pairwise judge's log, one row a pair, CSV or JSON Lines, read and measured.

Read by stage 14's rules (rows.py: encoding, delimiter, what a row is; JSON Lines by the
suffix), and each row by these (a column in CSV, a key in JSONL):

    id                   required: text, not empty; an id already used skips the row.
    output_1, output_2   the outputs (their lengths in characters are what is read),
    or length_1, length_2  or their lengths, numbers of 0 or more; the texts when both.
    verdict              required: the judge's choice with output_1 shown first: first,
                         second or tie (stage 8's words, case and spaces aside). Blank or
                         null: no verdict could be read; the pair is kept, UNREAD.
    verdict_swapped      the same with output_2 shown first. No such column: asked once.
    label, label_*       a person's label each: 1, 2 or tie; blank or null, none. The pair's
                         is the output more people chose than the other and than tie; TIE
                         otherwise (a split, or most said tie); NOT_ASKED when none.

A cell outside its rule skips its row, named with the value and what is allowed (rows =
used + skipped); the reading stops with one CourseInputError where stage 14's does, and
where a CSV header has neither form of the outputs. A million pairs are small-int arrays.
Measured: the four measures of measures.py, and where pairs have two labels or more, how far
the people agree among themselves (Krippendorff's alpha): the most a judge's can mean.
"""

from __future__ import annotations

import json
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from stages.s01_model.cli import short
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.findings import Finding
from stages.s08_eval.judge import VERDICTS
from stages.s09_calibration.measures import plain
from stages.s09_calibration.stats import Interval
from stages.s14_audit.cells import CSV_RULES, Rules, Unusable, blank, shown
from stages.s14_audit.rows import name_row, read_each, rows_of
from stages.s18_judges_on_record import report as r
from stages.s18_judges_on_record.measures import NOT_ASKED, ONE, TIE, TWO, UNREAD, Array, Judged
from stages.s18_judges_on_record.panel import alpha

FORMS = (("output_1", "output_2"), ("length_1", "length_2"))  # the outputs, or their lengths
SHOWN = dict(zip(VERDICTS, (ONE, TWO, TIE), strict=True))  # first, second, tie: output_1 first
SWAPPED = dict(zip(VERDICTS, (TWO, ONE, TIE), strict=True))  # ... output_2 shown first
NO_FORM = " or ".join(" and ".join(form) for form in FORMS)
LABELS = {"1": ONE, "2": TWO, "tie": TIE}  # a person's label, as written (JSON: 1 and 2 too)


class Required:
    def named(self) -> list[str]:  # what rows.py requires: in the header, or in every record
        return ["id", "verdict"]


@dataclass(frozen=True)
class PairLog:
    judged: Judged  # one entry a used row, in the file's order
    people: Array  # a used row each: how many people labelled it 1, 2 and tie
    rows: int  # every data row: used + skipped
    skipped: int
    problems: list[str]  # the first few skipped rows, "row N: why" (stage 14's SHOWN_BAD_ROWS)

    @property
    def used(self) -> int:
        return self.judged.pairs


def read_log(path: Path, encoding: str | None = None, delimiter: str | None = None) -> PairLog:
    """Every data row of `path` used or named; the format is the module's docstring."""
    arrays = [array("b") for _ in range(4)]  # shown, swapped, label, longer: one a pair
    people, first_row, problems = array("i"), dict[str, int](), list[str]()  # id: its row
    rows = skipped = 0

    def take(row: int, record: dict[str, Any], rules: Rules) -> None:
        pair = str(record["id"]) if type(record["id"]) is int else record["id"]  # 7: "7"
        if not isinstance(pair, str) or not pair.strip():
            raise Unusable(f"pair id {quoted(pair)}: expected text, not empty")
        if pair in first_row:
            raise Unusable(f"pair id {quoted(pair)} again: first at row {first_row[pair]}")
        one, two = sizes(path, record, rules)
        said = [label(record[k], k) for k in record if k == "label" or k.startswith("label_")]
        counts = [said.count(value) for value in (ONE, TWO, TIE)]  # people for 1, 2, tie
        read = (verdict(record, "verdict", SHOWN), verdict(record, "verdict_swapped", SWAPPED),
                majority(*counts), ONE if one > two else TWO if two > one else TIE)  # fmt: skip
        for values, value in zip(arrays, read, strict=True):  # every cell read: now keep them
            values.append(value)
        people.extend(counts)
        first_row[pair] = row

    with rows_of(path, Required(), encoding, delimiter) as (records, rules):
        for row, line, problem in read_each(records, lambda r, rec: take(r, rec, rules)):
            rows += 1
            if problem is not None:
                skipped += 1
                name_row(problems, row, line, problem)
    judged = Judged(*(np.frombuffer(values, dtype=np.int8) for values in arrays))
    counts = np.frombuffer(people, dtype=np.intc).reshape(-1, 3)
    return PairLog(judged, counts, rows, skipped, problems)


def sizes(path: Path, record: dict[str, Any], rules: Rules) -> tuple[float, float]:
    """The two outputs' lengths: their texts' characters, or the lengths as written."""
    texts, lengths = (record.keys() >= set(form) for form in FORMS)
    if texts:
        one, two = (float(len(rules.answer(record[key], key))) for key in FORMS[0])
        return one, two
    if not lengths:
        if rules is CSV_RULES:  # the header lacks them, and so every row
            named = ", ".join(map(repr, record))
            raise CourseInputError(f"{path}: expected columns {NO_FORM}; the header has: {named}")
        raise Unusable(f"no keys {NO_FORM}")
    one, two = (rules.number(record[key], "length", key) for key in FORMS[1])
    if min(one, two) < 0:
        raise Unusable(f"length {min(one, two):g} is negative: expected 0 or more")
    return one, two


def verdict(record: dict[str, Any], key: str, words: dict[str, int]) -> int:
    """One order's verdict, as the output chosen; NOT_ASKED without the key, UNREAD blank."""
    if key not in record:
        return NOT_ASKED
    value = record[key]
    if blank(value):
        return UNREAD
    if isinstance(value, str) and value.strip().lower() in words:
        return words[value.strip().lower()]
    raise Unusable(f"{key} {quoted(value)} is not one of {', '.join(VERDICTS)}")


def label(value: Any, key: str) -> int | None:
    """One person's label, or None for none; 1.5, 0, true and "yes" are not labels."""
    if blank(value):
        return None
    if type(value) is int or isinstance(value, str):  # JSON 1 and "1" alike; not true, not 1.0
        found = LABELS.get(str(value).strip().lower())
        if found is not None:
            return found
    raise Unusable(f"{key} {quoted(value)} is not one of 1, 2, tie")


def quoted(value: Any) -> str:
    """A bad value as its file wrote it: 'x' for text, the JSON for anything else."""
    return shown(repr(value) if isinstance(value, str) else json.dumps(value))


def majority(one: int, two: int, tie: int) -> int:
    """The people's label: the output more of them chose than the other and than tie."""
    if not one + two + tie:
        return NOT_ASKED
    return ONE if one > max(two, tie) else TWO if two > max(one, tie) else TIE


@dataclass(frozen=True)
class LogAudit:
    file: str
    log: PairLog
    measured: r.Measured
    people: tuple[float | None, Interval | None]  # Krippendorff's alpha among the people

    def unread(self) -> dict[str, int]:
        """Used pairs whose reply could not be read, in each order."""
        return {o: int((getattr(self.log.judged, o) == UNREAD).sum()) for o in ("shown", "swapped")}

    def to_json(self) -> dict[str, Any]:
        log, (people, ci) = self.log, self.people
        counts = {"rows": log.rows, "used": log.used, "skipped": log.skipped,
                  "problems": log.problems}  # fmt: skip
        return {"file": self.file, **counts, "unread": self.unread(), **plain(self.measured),
                "people": {"alpha": people, "ci": ci}}  # fmt: skip

    def clean(self) -> bool:
        """Every measure evaluated, and none found: the audit's exit 0."""
        return {m.state for m in self.measured.measures()} == {Finding.NOT_FOUND}


def audit(path: Path, encoding: str | None = None, delimiter: str | None = None) -> LogAudit:
    log = read_log(path, encoding, delimiter)
    return LogAudit(short(path), log, r.measured(log.judged), alpha(log.people))


def render(a: LogAudit) -> list[str]:
    (shown, swapped), log = a.unread().values(), a.log
    lines = [f"{a.file}: {log.rows} rows, {log.used} used, {log.skipped} skipped; replies "
             f"unread: {shown} as shown, {swapped} swapped"]  # fmt: skip
    lines += [f"  skipped {problem}" for problem in log.problems]
    lines += [r.BIASES, r.bias_row("your judge", a.measured), r.RIGHT,
              r.agreement_row("your judge", a.measured)]  # fmt: skip
    for name, m in zip(("swap", "first slot", "length"), a.measured.measures(), strict=True):
        lines.append(f"  {name}: {m.state}, {m.verdict or m.outcome.reason}")
    people = r.figure(*a.people) if a.people[0] is not None else "not evaluated, no pair has two"
    return [*lines, f"  the people among themselves, Krippendorff's alpha: {people}"]
