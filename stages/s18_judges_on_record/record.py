"""The record: six real judges' replies on 419 pairs, each asked in both orders, and the
experts' label: fixtures/llmbar/, which scripts/import_llmbar.py made from the LLMBar
benchmark's files (its docstring says what each key holds; SOURCE.md, where they came from).
A key that breaks its rule, a pair id twice, a reply whose pair, set or label is not in
pairs.jsonl, an order given twice or missing: one CourseInputError naming file and record.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from stages.s01_model.cli import FIXTURES
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import read_jsonl
from stages.s18_judges_on_record.measures import ONE, TIE, TWO, UNREAD, Array, Judged
from stages.s18_judges_on_record.reading import Beside, original, read_reply

RECORD = FIXTURES / "llmbar"
SETS = ("Natural", "Neighbor", "GPTInst", "GPTOut", "Manual")
SCOPES = {"Natural": SETS[:1], "Adversarial": SETS[1:], "all": SETS}  # what each table covers
JUDGES = ("GPT-4", "ChatGPT", "ChatGPT-0301", "PaLM2", "LLaMA2", "Falcon")
Replies = dict[tuple[str, str, bool], dict[str, Any]]  # (judge, pair id, swapped) -> its row
WINNERS = {"1": ONE, "2": TWO, None: None}  # the benchmark's reading, in the outputs' terms

Rule = tuple[Callable[[Any], bool], str]  # a key's test, and what it expects, in words
TEXT: Rule = (lambda v: isinstance(v, str), "text")
PAIR_KEYS: dict[str, Rule] = {
    "id": TEXT, "output_1": TEXT, "output_2": TEXT,
    "set": (lambda v: v in SETS, "one of " + ", ".join(SETS)),
    "label": (lambda v: type(v) is int and v in (1, 2), "1 or 2"),
}  # fmt: skip
REPLY_KEYS: dict[str, Rule] = {
    **{key: PAIR_KEYS[key] for key in ("id", "set", "label")}, "reply": TEXT,
    "judge": (lambda v: v in JUDGES, "one of " + ", ".join(JUDGES)),
    "swapped": (lambda v: isinstance(v, bool), "true or false"),
    "winner": (lambda v: v in WINNERS, '"1", "2" or null'),
    "synthesis_reply": (lambda v: v is None or isinstance(v, str), "text or null"),
    "synthesis_winner": (lambda v: v in WINNERS, '"1", "2" or null'),
}  # fmt: skip


@dataclass(frozen=True)
class Record:
    ids: list[str]  # the pairs, in the fixture's order
    sets: Array  # each pair's set
    judged: dict[str, Judged]  # each judge's first replies, as reading.py reads them
    beside: dict[str, Beside]  # our reading of them beside the benchmark's

    def scope(self, name: str) -> Array:
        """Which pairs a scope covers, as a mask."""
        return np.isin(self.sets, SCOPES[name])


def rows(path: Path, keys: dict[str, Rule]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each record of a JSONL file that keeps every rule, and where it is."""
    for number, row in enumerate(read_jsonl(path), start=1):
        where = f"{path}: record {number}"
        for key, (holds, expected) in keys.items():
            if not holds(row.get(key)):
                raise CourseInputError(f"{where}: {key} {row.get(key)!r}: expected {expected}")
        yield where, row


def load(folder: Path = RECORD) -> Record:
    pairs: dict[str, tuple[str, int, int]] = {}  # id -> set, label, the longer output
    for where, row in rows(folder / "pairs.jsonl", PAIR_KEYS):
        if row["id"] in pairs:
            raise CourseInputError(f"{where}: pair id {row['id']!r} twice")
        one, two = len(row["output_1"]), len(row["output_2"])
        pairs[row["id"]] = (
            row["set"],
            row["label"],
            ONE if one > two else TWO if two > one else TIE,
        )
    replies: Replies = {}
    for where, row in rows(folder / "verdicts.jsonl", REPLY_KEYS):
        key = (row["judge"], row["id"], row["swapped"])
        if pairs.get(row["id"], ())[:2] != (row["set"], row["label"]) or key in replies:
            raise CourseInputError(f"{where}: {key[0]} on pair {key[1]!r} ({row['set']}, label "
                                   f"{row['label']}), swapped {str(key[2]).lower()}: not a pair "
                                   "of pairs.jsonl, or given twice")  # fmt: skip
        replies[key] = row
    sets, label, longer = (np.array(column) for column in zip(*pairs.values(), strict=True))
    judged, beside = {}, {judge: Beside() for judge in JUDGES}
    for judge in JUDGES:
        shown, swapped = (readings(judge, pairs, replies, s, beside[judge]) for s in (False, True))
        judged[judge] = Judged(shown, swapped, label, longer)
    return Record(list(pairs), sets, judged, beside)


def readings(judge: str, pairs: Any, replies: Replies, swapped: bool, beside: Beside) -> Array:
    """A judge's first replies in one order, as the outputs they chose; each set beside the
    benchmark's reading."""
    chosen = []
    for pair in pairs:
        row = replies.get((judge, pair, swapped))
        if row is None:
            raise CourseInputError(f"verdicts.jsonl: no reply of {judge} on {pair}, swapped "
                                   f"{str(swapped).lower()}")  # fmt: skip
        ours = original(read_reply(row["reply"]), swapped)
        where = f"{judge} on {pair}{', swapped' if swapped else ''}"
        beside.add(where, row["reply"], ours, WINNERS[row["winner"]])
        chosen.append(UNREAD if ours is None else ours)
    return np.array(chosen)
