"""From bytes to text: the encoding a file is read in, and where it stops being that encoding.

UTF-8 is read with or without a BOM (Excel's "CSV UTF-8" writes one); --encoding names any
other. A byte that does not decode stops the reading with one line naming its offset in the
file, its line, and a guess at what the file is instead (UTF-16, Latin-1, not text at all).
"""

from __future__ import annotations

import codecs
from pathlib import Path
from typing import TextIO

from stages.s01_model.errors import CourseInputError

ENCODING = "utf-8-sig"  # UTF-8; a BOM at the start is dropped, not read as part of a name
HEAD_BYTES = 64 * 1024  # how much of the start of a file the guess at its encoding reads


def open_text(path: Path, encoding: str, newline: str = "") -> TextIO:
    try:
        return path.open(encoding=encoding, newline=newline)
    except LookupError:  # unknown, or not a text encoding (base64)
        raise CourseInputError(
            f"--encoding {encoding!r}: not a text encoding Python knows (utf-8, latin-1, cp1252, "
            "utf-16, ...)"
        ) from None
    except OSError as error:
        raise CourseInputError(f"{path}: cannot read ({error.strerror})") from None


def undecodable(path: Path, encoding: str) -> str:
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
        head = handle.read(HEAD_BYTES)
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "it starts like UTF-16: try --encoding utf-16"
    if b"\0" in head:
        return "it holds NUL bytes: a binary file, not text?"
    if codecs.lookup(encoding).name.startswith("utf-8"):
        return "if it is Latin-1, try --encoding latin-1 (cp1252 for a Windows spreadsheet)"
    return "name the file's encoding with --encoding"
