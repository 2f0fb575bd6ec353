"""Reading a table of scores as spreadsheets and scripts write it: CSV or JSONL.

The rules of reading, each of which a real file has been seen to break:

    encoding   UTF-8, with or without a BOM (Excel's "CSV UTF-8" writes one), or --encoding.
               A byte that does not decode stops the reading, naming its offset in the file.
    delimiter  sniffed among , ; tab | from the start of a CSV file, or --delimiter.
    a row      a CSV record after the header (numbered as a spreadsheet does: the header is
               row 1), or a JSONL line that is not blank. Blank lines are not rows.
    a number   CSV: a decimal literal (7, -1.5, .5), finite. JSON: a number, finite; not a
               bool, not a string. A score is a number; so is a length, and not negative. A
               human label is a number, a pass/fail word or (JSON) true/false.

A value that breaks a rule makes its row Unusable, with the problem in words; the caller
counts and names it. What stops the reading instead (CourseInputError, exit 2): a file that
cannot be decoded, a NUL character or a quote that never closes in a CSV file, and a named
column missing from the header (or, in JSONL, from every record). Rows are streamed.
"""

from __future__ import annotations

import codecs
import csv
import json
import math
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from stages.s01_model.errors import CourseInputError

ENCODING = "utf-8-sig"  # UTF-8; a BOM at the start is dropped, not read as part of a name
DELIMITERS = ",;\t|"  # what a CSV file may be split at when sniffed; "," if it cannot be told
SNIFF_CHARS = 64 * 1024  # how much of the start of a CSV file the delimiter is sniffed from
JSONL = (".jsonl", ".ndjson")  # any other suffix is read as CSV
SHOWN_CHARS = 40  # a bad value longer than this is cut short in a problem
SHOWN_NAMES = 20  # how many column names an error lists
PASS_WORDS = {"pass": True, "passed": True, "true": True, "yes": True,
              "fail": False, "failed": False, "false": False, "no": False}  # fmt: skip
# A decimal literal: a sign, digits, a fraction (7, -1.5, .5). ASCII digits only: float()
# alone would also take "nan", "inf", "1e309", "1_0" and digits of other scripts.
DECIMAL = re.compile(r"[ \t]*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[ \t]*")
DECIMAL_COMMA = re.compile(r"[ \t]*[+-]?[0-9]*,[0-9]+[ \t]*")  # 7,5: how some locales write 7.5


class Unusable(Exception):
    """A row the audit cannot use; the message says why, and goes to the skipped file."""


@dataclass(frozen=True)
class Columns:
    """The columns (CSV) or keys (JSONL) to read: the answer or its length, not both."""

    score: str
    answer: str | None = None
    length: str | None = None
    human: str | None = None

    def named(self) -> list[str]:
        return [name for name in (self.score, self.answer or self.length, self.human) if name]


# ---- values: one set of rules per format --------------------------------------------------


def _shown(text: str) -> str:
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
    where = f"{role} {_shown(repr(value))} in column {column!r}"
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
        f"human label {_shown(repr(value))} in column {column!r} is neither a decimal number"
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
    where = f"{role} {_shown(json.dumps(value))} in key {column!r}"
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
            f"human label {_shown(json.dumps(value))} in key {column!r} is neither a number, "
            "true/false nor a pass/fail word"
        ) from None


def json_answer(value: Any, column: str) -> str:
    if value is None or value == "":
        raise Unusable(f"no value in key {column!r}")
    if not isinstance(value, str):
        raise Unusable(f"answer {_shown(json.dumps(value))} in key {column!r} is not a string")
    return value


@dataclass(frozen=True)
class Rules:
    """How one format's cells are read; each raises Unusable with the problem."""

    number: Callable[[Any, str, str], float]  # (value, role, column)
    label: Callable[[Any, str, float], bool]  # (value, column, gate)
    answer: Callable[[Any, str], str]  # (value, column)


CSV_RULES = Rules(text_number, text_label, text_answer)
JSON_RULES = Rules(json_number, json_label, json_answer)

# ---- rows: (row number, line it starts on, record or None, problem) -----------------------

Row = tuple[int, int, dict[str, Any] | None, str]


def csv_rows(path: Path, handle: TextIO, columns: Columns, delimiter: str | None) -> Iterator[Row]:
    """The data rows of a CSV file with a header row.

    A row must have as many fields as the header. A blank line is not a row (it keeps its
    number, as in a spreadsheet). strict=True makes the csv module raise on a quote that
    never closes, where by default it would read the rest of the file into one value.
    """
    delimiter = delimiter or sniff(handle)
    reader = csv.reader(_lines(path, handle), delimiter=delimiter, strict=True)
    start = 1  # the line the next record starts on
    try:
        header = next(reader, None)
        if header is None:
            raise CourseInputError(f"{path}: empty file, no header row")
        _check_header(path, header, columns, delimiter)
        row, start = 1, reader.line_num + 1
        for fields in reader:
            row, line, start = row + 1, start, reader.line_num + 1
            if not fields:
                continue
            if len(fields) == len(header):
                yield row, line, dict(zip(header, fields, strict=True)), ""
            else:
                yield row, line, None, _ragged(len(fields), len(header), delimiter)
    except csv.Error as error:
        if "unexpected end of data" in str(error):  # strict: inside quotes at the end
            raise CourseInputError(
                f"{path}: line {start}: a quote opened in the record that starts here never "
                "closes: the rest of the file would be read as one value"
            ) from None
        raise CourseInputError(f"{path}: line {start}: not readable as CSV ({error})") from None


def _ragged(fields: int, width: int, delimiter: str) -> str:
    comma = ", such as a decimal comma" if delimiter == "," else ""
    split = f" (an unquoted {delimiter!r} in a value{comma}?)" if fields > width else ""
    return f"{fields} fields where the header has {width}{split}"


def _lines(path: Path, handle: TextIO) -> Iterator[str]:
    """The lines of a CSV file. A NUL is not text: the file is binary, or UTF-16 read as
    8-bit (Python 3.10's csv module raises on it; 3.11's passes it on)."""
    for number, line in enumerate(handle, start=1):
        if "\0" in line:
            raise CourseInputError(
                f"{path}: line {number} holds a NUL character: a binary file, or UTF-16 "
                "(then give --encoding utf-16)?"
            )
        yield line


def _check_header(path: Path, header: list[str], columns: Columns, delimiter: str) -> None:
    for name in columns.named():
        count = header.count(name)
        if count > 1:
            raise CourseInputError(f"{path}: column {name!r} appears {count} times in the header")
        if count == 0:
            bom = header and header[0].startswith("\ufeff")  # read with --encoding utf-8
            bom_hint = " (a BOM: give --encoding utf-8-sig)" if bom else ""
            raise CourseInputError(
                f"{path}: no column {name!r} in the header; the columns there are: "
                f"{_listing(header)}{bom_hint} (split at {delimiter!r}; --delimiter to change it)"
            )


def _listing(names: list[str]) -> str:
    shown = ", ".join(repr(name) for name in names[:SHOWN_NAMES])
    more = len(names) - SHOWN_NAMES
    return shown + (f" and {more} more" if more > 0 else "") if names else "none"


def sniff(handle: TextIO) -> str:
    """The delimiter of a CSV file, guessed among DELIMITERS from whole lines at its start."""
    sample = handle.read(SNIFF_CHARS)
    handle.seek(0)
    if len(sample) == SNIFF_CHARS and "\n" in sample:
        sample = sample[: sample.rindex("\n") + 1]
    try:
        return csv.Sniffer().sniff(sample, delimiters=DELIMITERS).delimiter
    except csv.Error:  # one column, or no delimiter used consistently
        return ","


def jsonl_rows(path: Path, handle: TextIO, columns: Columns) -> Iterator[Row]:
    """The data rows of a JSONL file: every line that is not blank, numbered by its line.

    A record without a named key is a skipped row; a key that no record has is an error.
    """
    needed = columns.named()
    seen: set[str] = set()  # every key of every record, for the error when one is never there
    objects = 0
    for number, line in enumerate(handle, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            yield number, number, None, f"not JSON ({error.msg}, column {error.colno})"
            continue
        except (ValueError, RecursionError) as error:  # an int of 4,300+ digits; deep nesting
            yield number, number, None, f"not JSON ({type(error).__name__}: {_shown(str(error))})"
            continue
        if not isinstance(record, dict):
            yield number, number, None, f"not a JSON object: {_shown(line.strip())}"
            continue
        objects += 1
        seen.update(record)
        missing = [name for name in needed if name not in record]
        if missing:
            yield number, number, None, f"no key {missing[0]!r}"
        else:
            yield number, number, record, ""
    absent = [name for name in needed if name not in seen]
    if objects and absent:
        raise CourseInputError(
            f"{path}: no record has the key {absent[0]!r}; the keys there are: "
            f"{_listing(sorted(seen))}"
        )


# ---- reading a whole file ----------------------------------------------------------------


@contextmanager
def rows_of(
    path: Path, columns: Columns, encoding: str | None = None, delimiter: str | None = None
) -> Iterator[tuple[Iterator[Row], Rules]]:
    """The data rows of `path`, and the rules its values are read by (by its suffix).

    Within the block, a byte that does not decode becomes one CourseInputError naming its
    offset; the csv module may read a field as long as the file.
    """
    encoding = encoding or ENCODING
    jsonl = path.suffix.lower() in JSONL
    handle = _open(path, encoding)
    limit = csv.field_size_limit()
    try:
        csv.field_size_limit(max(limit, path.stat().st_size + 1))
        with handle:
            if jsonl:
                yield jsonl_rows(path, handle, columns), JSON_RULES
            else:
                yield csv_rows(path, handle, columns, _delimiter(delimiter)), CSV_RULES
    except UnicodeDecodeError:
        raise CourseInputError(_undecodable(path, encoding)) from None
    finally:
        csv.field_size_limit(limit)


def _open(path: Path, encoding: str) -> TextIO:
    try:
        return path.open(encoding=encoding, newline="")
    except LookupError:  # unknown, or not a text encoding (base64)
        raise CourseInputError(
            f"--encoding {encoding!r}: not a text encoding Python knows (utf-8, latin-1, cp1252, "
            "utf-16, ...)"
        ) from None
    except OSError as error:
        raise CourseInputError(f"{path}: cannot read ({error.strerror})") from None


def _delimiter(given: str | None) -> str | None:
    if given is None:
        return None
    delimiter = {"\\t": "\t", "tab": "\t"}.get(given, given)
    if len(delimiter) != 1 or delimiter in '"\r\n':
        raise CourseInputError(f"--delimiter {given!r}: expected one character, such as ; or tab")
    return delimiter


def _undecodable(path: Path, encoding: str) -> str:
    """The first byte of `path` that does not decode, where it is, and what it may mean.

    The decoder's own error counts from the start of its buffer, so the file is read again
    in binary, keeping count of the bytes before each chunk.
    """
    decoder = codecs.getincrementaldecoder(encoding)()
    offset = lines = 0
    with path.open("rb") as handle:
        while True:
            chunk = handle.read(1 << 20)
            pending = decoder.getstate()[0]  # the start of a character cut by the last chunk
            try:
                decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as error:
                # it decoded pending + chunk, less whatever it dropped first (a BOM)
                dropped = len(pending) + len(chunk) - len(error.object)
                at = offset - len(pending) + dropped + error.start
                lines += chunk[: max(0, at - offset)].count(b"\n")
                return (
                    f"{path}: byte 0x{error.object[error.start]:02x} at offset {at} (line "
                    f"{lines + 1}) is not {encoding}: {_hint(path, encoding)}"
                )
            if not chunk:
                return f"{path}: cannot be decoded as {encoding}"  # it changed while read
            offset, lines = offset + len(chunk), lines + chunk.count(b"\n")


def _hint(path: Path, encoding: str) -> str:
    with path.open("rb") as handle:
        head = handle.read(SNIFF_CHARS)
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "it starts like UTF-16: try --encoding utf-16"
    if b"\0" in head:
        return "it holds NUL bytes: a binary file, not text?"
    if codecs.lookup(encoding).name.startswith("utf-8"):
        return "if it is Latin-1, try --encoding latin-1 (cp1252 for a Windows spreadsheet)"
    return "name the file's encoding with --encoding"
