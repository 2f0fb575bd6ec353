"""From a file to its rows: a table of scores as spreadsheets and scripts write it, CSV or JSONL.

The rules of reading, each of which a real file has been seen to break:

    encoding   UTF-8, with or without a BOM, or --encoding (encoding.py).
    delimiter  sniffed among , ; tab | from the start of a CSV file, or --delimiter.
    a row      a CSV record after the header (numbered as a spreadsheet does: the header is
               row 1), or a JSONL line that is not blank. Blank lines are not rows.
    a record   the row's cells by column name (CSV) or the row's object (JSONL); a row that
               cannot be one (a field too many or too few, not JSON, no named key) comes
               with its problem instead. Its cells are read by the rules of cells.py.

What stops the reading instead (CourseInputError, exit 2): a file that cannot be decoded, a
NUL character or a quote that never closes in a CSV file, and a named column missing from
the header (or, in JSONL, from every record). Rows are streamed: a file of any length fits.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import chain, islice
from pathlib import Path
from typing import Any, Protocol, TextIO

from stages.s01_model.errors import CourseInputError
from stages.s14_audit.cells import CSV_RULES, JSON_RULES, Rules, Unusable, shown
from stages.s14_audit.encoding import ENCODING, open_text, undecodable

DELIMITERS = ",;\t|"  # what a CSV file may be split at when sniffed; "," if it cannot be told
SNIFF_CHARS, SNIFF_LINES = 64 * 1024, 1000  # at most this much of a CSV file is sniffed
JSONL = (".jsonl", ".ndjson")  # any other suffix is read as CSV
SHOWN_NAMES = 20  # how many column names an error lists
SHOWN_BAD_ROWS = 10  # how many unusable rows a report lists (the audit's skipped file has all)


class Named(Protocol):
    """What a reader needs to know of the columns: their names, each required in the header."""

    def named(self) -> list[str]: ...


@dataclass(frozen=True)
class Columns:
    """The columns (CSV) or keys (JSONL) to read: the answer or its length, not both."""

    score: str
    answer: str | None = None
    length: str | None = None
    human: str | None = None

    def named(self) -> list[str]:  # '' too: no column goes unnamed
        return [n for n in (self.score, self.answer or self.length, self.human) if n is not None]


# ---- rows: (row number, line it starts on, record or None, problem) -----------------------

Row = tuple[int, int, dict[str, Any] | None, str]


def csv_rows(path: Path, handle: TextIO, columns: Named, delimiter: str | None) -> Iterator[Row]:
    """The data rows of a CSV file with a header row.

    A row must have as many fields as the header. A blank line is not a row (it keeps its
    number, as in a spreadsheet). strict=True makes the csv module raise on a quote that
    never closes, where by default it would read the rest of the file into one value.
    """
    delimiter, lines = (delimiter, handle) if delimiter else sniff(handle)
    reader = csv.reader(_lines(path, lines), delimiter=delimiter, strict=True)
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


def _lines(path: Path, handle: Iterable[str]) -> Iterator[str]:
    """The lines of a CSV file. A NUL is not text: the file is binary, or UTF-16 read as
    8-bit (Python 3.10's csv module raises on it; 3.11's passes it on)."""
    for number, line in enumerate(handle, start=1):
        if "\0" in line:
            raise CourseInputError(
                f"{path}: line {number} holds a NUL character: a binary file, or UTF-16 "
                "(then give --encoding utf-16)?"
            )
        yield line


def _check_header(path: Path, header: list[str], columns: Named, delimiter: str) -> None:
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
    listed = ", ".join(repr(name) for name in names[:SHOWN_NAMES])
    more = len(names) - SHOWN_NAMES
    return listed + (f" and {more} more" if more > 0 else "") if names else "none"


def sniff(handle: TextIO) -> tuple[str, Iterable[str]]:
    """The delimiter of a CSV file, guessed among DELIMITERS from whole lines at its start, and
    its lines from the first. A pipe cannot be read twice, so none is: the sample, its last
    line completed, is put back in front of the rest of the stream."""
    sample = handle.read(SNIFF_CHARS)
    lines = chain(io.StringIO(sample + handle.readline(), newline=""), handle)
    if len(sample) == SNIFF_CHARS and "\n" in sample:
        sample = sample[: sample.rindex("\n") + 1]
    sample = "".join(islice(io.StringIO(sample, newline=""), SNIFF_LINES))  # it costs per line
    try:
        return csv.Sniffer().sniff(sample, delimiters=DELIMITERS).delimiter, lines
    except csv.Error:  # one column, or no delimiter used consistently
        return ",", lines


def jsonl_rows(path: Path, handle: TextIO, columns: Named) -> Iterator[Row]:
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
            yield number, number, None, f"not JSON ({type(error).__name__}: {shown(str(error))})"
            continue
        if not isinstance(record, dict):
            yield number, number, None, f"not a JSON object: {shown(line.strip())}"
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


# ---- every row used or named ------------------------------------------------------------


def read_each(
    rows: Iterator[Row], take: Callable[[int, dict[str, Any]], None]
) -> Iterator[tuple[int, int, str | None]]:
    """Every data row as (row, line, problem): its record is given to `take`, which raises
    Unusable to say why it cannot be used; `problem` is None for a row that was. The one loop
    every reader of a file goes through, so no row is dropped without being named."""
    for row, line, record, problem in rows:
        if record is not None:
            try:
                take(row, record)
                yield row, line, None
                continue
            except Unusable as why:
                problem = str(why)
        yield row, line, problem


def name_row(problems: list[str], row: int, line: int, problem: str) -> None:
    """Keep the first SHOWN_BAD_ROWS unusable rows, each as a report names it."""
    if len(problems) < SHOWN_BAD_ROWS:
        where = f"row {row}" if row == line else f"row {row} (line {line})"
        problems.append(f"{where}: {problem}")


# ---- reading a whole file ----------------------------------------------------------------


@contextmanager
def rows_of(
    path: Path, columns: Named, encoding: str | None = None, delimiter: str | None = None
) -> Iterator[tuple[Iterator[Row], Rules]]:
    """The data rows of `path`, and the rules its values are read by (by its suffix).

    Within the block, a byte that does not decode becomes one CourseInputError naming its
    offset; the csv module may read a field as long as the file.
    """
    encoding = encoding or ENCODING
    jsonl = path.suffix.lower() in JSONL
    handle = open_text(path, encoding, "\n" if jsonl else "")  # JSONL: \r is white space
    limit = csv.field_size_limit()
    try:
        csv.field_size_limit(max(limit, path.stat().st_size + 1))
        with handle:
            if jsonl:
                yield jsonl_rows(path, handle, columns), JSON_RULES
            else:
                yield csv_rows(path, handle, columns, _delimiter(delimiter)), CSV_RULES
    except UnicodeDecodeError:
        raise CourseInputError(undecodable(path, encoding)) from None
    finally:
        csv.field_size_limit(limit)


def _delimiter(given: str | None) -> str | None:
    if given is None:
        return None
    delimiter = {"\\t": "\t", "tab": "\t"}.get(given, given)
    if len(delimiter) != 1 or delimiter in '"\r\n':
        raise CourseInputError(f"--delimiter {given!r}: expected one character, such as ; or tab")
    return delimiter
