"""Recorded replies: what the local model answered, kept in the repository and replayed with
no model, no server and no network.

A recording is JSON Lines, one reply per question, sorted by key. The key is the journal's
fingerprint of a question: the model file's hash, the settings that change a reply, the exact
messages and the repeat. `--record` writes the replies a run with `--judge local` received,
and says how many differ from what the recording held (a different CPU or llama.cpp build may
change some). `--judge replay` answers from the recording and asks nothing; a question it does
not hold is never guessed: it is unscored, counted, and the run says how to record it.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from stages.s01_model.cli import FIXTURES, short
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import dumps, read_text, write_text
from stages.s08_eval.judge import Instrument
from stages.s12_real_judge.journal import Journal
from stages.s12_real_judge.prompts import Messages
from stages.s12_real_judge.settings import Settings
from stages.s13_local_model.models import Model, default
from stages.s13_local_model.schemas import StructuredJudge

NOWHERE = "http://127.0.0.1:9/v1"  # a replay sends nothing; were it to, nothing listens here


class NotRecorded(ConnectionError):
    """A question the recording does not hold: "unavailable", never a guess."""


def load(path: Path) -> dict[str, str]:
    """Every recorded reply by key; a bad line is an error naming the file and line."""
    return {row["key"]: row["reply"] for row in text_rows(path, ("key", "reply"))}


def text_rows(path: Path, names: tuple[str, ...]) -> list[dict[str, str]]:
    """The rows of a JSON Lines file of text fields, each with exactly `names`; none when
    the file is not there. A bad line is an error naming the file and the line."""
    if not path.exists():
        return []
    rows = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise CourseInputError(f"{path}:{number}: not JSON ({error.msg})") from None
        if not isinstance(row, dict) or set(row) != set(names):
            raise CourseInputError(f"{path}:{number}: expected an object with {', '.join(names)}")
        if not all(isinstance(row[name], str) for name in names):
            raise CourseInputError(f"{path}:{number}: {' and '.join(names)} must be text")
        rows.append(row)
    return rows


def recording(model: Model) -> Path:
    """Where the model's replies are recorded."""
    return FIXTURES / model.recording


def save(received: dict[str, str], model: Model | None = None, path: Path | None = None) -> str:
    """Add a run's replies to the recording; what to tell the person who recorded them."""
    path = path or recording(model or default())
    held = load(path)
    compared = [key for key in received if key in held]
    differ = sum(held[key] != received[key] for key in compared)
    merged = {**held, **received}
    lines = [dumps({"key": key, "reply": merged[key]}) + "\n" for key in sorted(merged)]
    write_text(path, "".join(lines))
    return (
        f"recording: {len(received)} replies written to {short(path)}; {differ} of "
        f"{len(compared)} it held already differ from this run's"
    )


class ReplayJudge(StructuredJudge):
    """The local model as recorded: every reply from the recording, no request ever sent."""

    def __init__(self, settings: Settings, model: Model) -> None:
        super().__init__(model.alias, settings, base_url=NOWHERE, use_journal=False)
        self.identity, self.path, self.missing = model.identity, recording(model), 0
        self.rerecord = (
            f"this command and `--judge {model.spec} --record` (`{model.make}` records its runs)"
        )
        self.journal = Journal(Path(":memory:"))  # the recording in the journal's place
        for key, reply in load(self.path).items():
            self.journal.put(key, reply)

    def _call(self, messages: Messages, shape: str) -> str:
        with self.lock:
            self.missing += 1
        raise NotRecorded(f"not in the recording {short(self.path)}")

    def down(self) -> str | None:
        """Why this replay is not the recorded run: the questions it could not answer."""
        if not self.missing:
            return None
        asked = self.missing + self.cached
        return (
            f"{self.missing} of {asked} questions are not in the recording "
            f"{short(self.path)}; record them with {self.rerecord}"
        )

    def describe(self) -> Instrument:
        recording = f"the recording {short(self.path)}"
        return replace(super().describe(), endpoint="nowhere (a replay)", kept_in=recording)
