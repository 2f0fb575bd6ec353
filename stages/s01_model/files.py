"""Reading the course's input files, with errors that say which file, line and value;
checking where a command will write before it does any work; and writing so that a file is
whole or untouched, never half-written, and its JSON is strict.
"""

from __future__ import annotations

import json
import math
import os
import secrets
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from stages.s01_model.errors import CourseInputError

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, from PyPI
    import tomli as tomllib


def read_text(path: Path) -> str:
    """A UTF-8 file's text, with or without the byte-order mark some editors write first; a
    missing file, or a byte that is not UTF-8, is a CourseInputError naming the place."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except OSError as error:
        raise CourseInputError(f"{path}: cannot read ({error.strerror})") from None
    except UnicodeDecodeError as error:
        raise CourseInputError(f"{path}: byte {error.start} is not UTF-8") from None


def load_json(path: Path) -> Any:
    """Parse a JSON file; a missing file or bad JSON is a CourseInputError naming the place."""
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise CourseInputError(
            f"{path}:{error.lineno}:{error.colno}: not valid JSON ({error.msg})"
        ) from None
    except (ValueError, RecursionError) as error:  # a number of 4,300+ digits; deep nesting
        raise CourseInputError(f"{path}: not usable JSON ({beyond(error)})") from None


def beyond(error: BaseException) -> str:
    """What JSON that parses may still ask too much of: nesting deeper than Python's stack."""
    if isinstance(error, RecursionError):
        return "nested too deeply to read"
    return " ".join(str(error).split())[:200]


def load_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; a missing file or bad TOML is a CourseInputError naming the place."""
    return parse_toml(read_text(path), str(path))


def parse_toml(text: str, where: str) -> dict[str, Any]:
    """Parse TOML text; bad TOML is a CourseInputError naming `where` it came from."""
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise CourseInputError(f"{where}: not valid TOML ({error})") from None
    return data


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Read a JSONL file back; a line that is not a JSON object is an error naming its line."""
    return parse_jsonl(read_text(path), path)


def parse_jsonl(text: str, path: Path | str) -> list[dict[str, Any]]:
    """The objects of JSONL text from `path`, one a line. Lines end at a newline only: a
    carriage return is white space between JSON's tokens, and never splits a record."""
    records: list[dict[str, Any]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise CourseInputError(f"{path}:{number}: not JSON ({error.msg})") from None
        except (ValueError, RecursionError) as error:
            raise CourseInputError(f"{path}:{number}: not usable JSON ({beyond(error)})") from None
        if not isinstance(record, dict):
            raise CourseInputError(f"{path}:{number}: expected a JSON object, got {line!r}")
        records.append(record)
    return records


def folder(path: Path | None, option: str) -> Path | None:
    """`path` when it is a folder or can become one (None stays None): checked before any work."""
    if path is None:
        return None
    above = next(place for place in (path, *path.resolve().parents) if place.exists())
    if not above.is_dir():
        where = "" if above == path else f" {above}"
        raise CourseInputError(f"{option} {path}:{where} is a file; name a folder to write them in")
    probe(above, f"{option} {path}")
    return path


def writable(path: Path, option: str) -> Path:
    """`path`, once it is known that a file can be written there (its folder made if missing):
    checked before any work. Anything in the way is a CourseInputError naming the option."""
    above = next(folder for folder in path.resolve().parents if folder.exists())
    if not above.is_dir():
        raise CourseInputError(f"{option} {path}: {above} is a file, not a folder")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise CourseInputError(
            f"{option} {path}: cannot make its folder ({error.strerror})"
        ) from None
    if path.is_dir():
        raise CourseInputError(f"{option} {path}: is a folder, not a file")
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise CourseInputError(f"{option} {path}: no permission to write here")
    probe(path.parent, f"{option} {path}")
    return path


def probe(place: Path, named: str) -> None:
    """Write and remove a file in the folder `place`: the one test of writing there that does
    not lie (os.access says yes to root, even where the system refuses every file)."""
    try:
        with tempfile.TemporaryFile(dir=place):
            pass
    except OSError as error:
        raise CourseInputError(f"{named}: cannot write in {place} ({error.strerror})") from None


def write_text(path: Path, text: str) -> None:
    """Replace a file with `text`, whole, or leave it as it was (write_through)."""
    write_through(path, lambda out: out.write(text.encode("utf-8")))


def write_through(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """Replace a file whole, or leave it as it was: `write` fills a temporary file beside it,
    which is flushed to the disk, then renamed over it. A disk that fills half-way through
    loses the new bytes, never the old file. A place that cannot be written is a
    CourseInputError. Every file a command writes (a report, a plot) is written here."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o666  # the umask applies
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(handle, "wb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException as error:  # Ctrl-C and SIGTERM too: no temporary is left behind
        temporary.unlink(missing_ok=True)
        if isinstance(error, OSError):
            why = f"cannot write ({error.strerror}); {kept(path)}"
            raise CourseInputError(f"{path}: {why}") from None
        raise


def append_line(path: Path, line: str) -> None:
    """Add one line at the end of a file, whole or not at all: a write that fails half-way is
    cut back to where the file ended, so the lines before it stay readable."""
    data = line.encode("utf-8")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    except OSError as error:
        raise CourseInputError(f"{path}: cannot write ({error.strerror})") from None
    try:
        end = os.lseek(handle, 0, os.SEEK_END)
        try:
            written = 0
            while written < len(data):  # a write may take only part of what it is given
                written += os.write(handle, data[written:])
            os.fsync(handle)
        except OSError as error:
            os.ftruncate(handle, end)  # the part that made it in goes, the rest stays
            raise CourseInputError(
                f"{path}: cannot write ({error.strerror}); {kept(path)}"
            ) from None
    finally:
        os.close(handle)


def kept(path: Path) -> str:
    """What a write that failed left behind: the old file, whole, or nothing new."""
    return "the file is as it was" if path.is_file() else "nothing was written"


def dumps(value: Any, **options: Any) -> str:
    """JSON text that any strict reader accepts (json.dumps' options pass through). NaN and
    Infinity have no JSON spelling: a figure that is one is refused, naming where it sits,
    rather than written as a bare NaN that a reader rejects later, far from its cause."""
    try:
        return json.dumps(value, allow_nan=False, **options)
    except ValueError:
        where = (not_finite(value) or "a figure").removeprefix(".")
        raise CourseInputError(
            f"cannot write JSON: {where} is not a finite number, computed from numbers too "
            "large (or too wild) to compute with"
        ) from None


def not_finite(value: Any, at: str = "") -> str | None:
    """Where in `value` the first NaN or infinite number sits, as a key path; None if nowhere."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"{at or 'the value'} ({value})"
    inner: Any = value.items() if isinstance(value, dict) else ()
    if isinstance(value, (list, tuple)):
        inner = enumerate(value)
    for key, item in inner:
        found = not_finite(item, f"{at}.{key}" if isinstance(key, str) else f"{at}[{key}]")
        if found:
            return found
    return None
