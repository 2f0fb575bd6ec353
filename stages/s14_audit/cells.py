"""From one cell to one value: a score, a length, a person's verdict, an answer.

A file's rows arrive as records (rows.py); this module reads each named cell by the rules of
its format, and says in words why a cell cannot be used:

    a number   CSV: a decimal literal (7, -1.5, .5), finite. JSON: a number, finite; not a
               bool, not a string. A score is a number; so is a length, and not negative.
    a label    a person's verdict: a number read at the gate, a pass/fail word, or (JSON)
               true/false.
    an answer  text that is not empty; in JSON, a string.

A cell that breaks a rule raises Unusable with the problem; the audit counts its row and
names it in the skipped file. Nothing here stops the reading: one bad cell costs one row.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

SHOWN_CHARS = 40  # a bad value longer than this is cut short in a problem
PASSED_WORDS, FAILED_WORDS = ("pass", "passed", "true", "yes"), ("fail", "failed", "false", "no")
PASS_WORDS = {word: True for word in PASSED_WORDS} | {word: False for word in FAILED_WORDS}
# A decimal literal: a sign, digits, a fraction (7, -1.5, .5). ASCII digits only: float()
# alone would also take "nan", "inf", "1e309", "1_0" and digits of other scripts.
DECIMAL = re.compile(r"[ \t]*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[ \t]*")
DECIMAL_COMMA = re.compile(r"[ \t]*[+-]?[0-9]*,[0-9]+[ \t]*")  # 7,5: how some locales write 7.5


class Unusable(Exception):
    """A row the audit cannot use; the message says why, and goes to the skipped file."""


def shown(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


def _decimal(text: str) -> float | None:
    """A decimal literal as a finite float; None for anything else (400 digits: None too)."""
    number = float(text) if DECIMAL.fullmatch(text) else math.nan
    return number if math.isfinite(number) else None


def text_number(value: str, role: str, column: str) -> float:
    """A CSV cell as a finite number."""
    number = _decimal(value)
    if number is not None:
        return number
    if not value.strip():
        raise Unusable(f"no value in column {column!r}")
    where = f"{role} {shown(repr(value))} in column {column!r}"
    if DECIMAL_COMMA.fullmatch(value):
        dotted = value.strip().replace(",", ".")
        raise Unusable(f"{where} is not a number: a decimal comma? (write {dotted!r})")
    if DECIMAL.fullmatch(value):
        raise Unusable(f"{where} is too large to be a finite number")
    raise Unusable(f"{where} is not a decimal number like 7, -1.5 or .5")


def text_label(value: str, column: str, gate: float) -> bool:
    """A CSV cell as a person's verdict: a pass/fail word, or a number read at the gate."""
    word = value.strip().lower()
    if word in PASS_WORDS:
        return PASS_WORDS[word]
    number = _decimal(value)
    if number is not None:
        return number >= gate
    if not word:
        raise Unusable(f"no value in column {column!r}")
    comma = " (a decimal comma?)" if DECIMAL_COMMA.fullmatch(value) else ""
    raise Unusable(
        f"human label {shown(repr(value))} in column {column!r} is neither a decimal number"
        f"{comma} nor a pass/fail word"
    )


def text_answer(value: str, column: str) -> str:
    if not value:
        raise Unusable(f"no value in column {column!r}")
    return value


def json_number(value: Any, role: str, column: str) -> float:
    """A JSON value as a finite number: an int or a float, not a bool and not a string."""
    if type(value) is int or type(value) is float:  # bool is a subclass of int: not this
        try:
            number = float(value)
        except OverflowError:  # an int beyond any float
            number = math.inf
        if math.isfinite(number):
            return number
    if value is None:
        raise Unusable(f"{role} in key {column!r} is null")
    where = f"{role} {shown(json.dumps(value))} in key {column!r}"
    if isinstance(value, bool):
        raise Unusable(f"{where} is a JSON boolean, not a number")
    if isinstance(value, str):
        raise Unusable(f"{where} is a JSON string, not a number")
    if isinstance(value, (int, float)):  # NaN, Infinity, or 1e309 and beyond
        raise Unusable(f"{where} is not a finite number")
    raise Unusable(f"{where} is not a number")


def json_label(value: Any, column: str, gate: float) -> bool:
    """A JSON value as a person's verdict: true/false, a pass/fail word, or a number."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in PASS_WORDS:
        return PASS_WORDS[value.strip().lower()]
    try:
        return json_number(value, "human label", column) >= gate
    except Unusable:
        if value is None:
            raise
        raise Unusable(
            f"human label {shown(json.dumps(value))} in key {column!r} is neither a number, "
            "true/false nor a pass/fail word"
        ) from None


def json_answer(value: Any, column: str) -> str:
    if value is None or value == "":
        raise Unusable(f"no value in key {column!r}")
    if not isinstance(value, str):
        raise Unusable(f"answer {shown(json.dumps(value))} in key {column!r} is not a string")
    return value


def blank(value: Any) -> bool:
    """A human label left out: an empty cell, a JSON null or empty string. The row is
    measured, and counts as unlabelled."""
    return value is None or (isinstance(value, str) and not value.strip())


def a_flag(value: Any) -> bool:
    """A label written as a number from 0 to 1 (a flag, or a share), not on the score scale."""
    try:
        return not isinstance(value, bool) and 0 <= float(str(value).strip()) <= 1
    except ValueError:
        return False


def flags_at_the_gate(where: str, gate: float, option: str = "") -> str:
    """Why labels that all lie from 0 to 1 are refused: read as scores, all would fail."""
    return (
        f"{where}: every human label is a number from 0 to 1, and each is read as a score at "
        f"the gate of {gate:g}, so every one would be a fail; if 1 means a pass, write pass "
        "and fail" + (f" (or give {option})" if option else "")
    )


@dataclass(frozen=True)
class Rules:
    """How one format's cells are read; each raises Unusable with the problem."""

    number: Callable[[Any, str, str], float]  # (value, role, column)
    label: Callable[[Any, str, float], bool]  # (value, column, gate)
    answer: Callable[[Any, str], str]  # (value, column)


CSV_RULES = Rules(text_number, text_label, text_answer)
JSON_RULES = Rules(json_number, json_label, json_answer)
