"""Writing a trace: one JSON object per line, appended as the run goes.

Every stage keeps a trace, and each stage decides for itself what goes in a line. Stage 1's
lines are the plain conversation: a role and a text. Nothing in them says which run a line
belongs to; two runs written to the same file cannot be told apart.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class JsonlTrace:
    """Appends records to a JSONL file (when given a path) and keeps them in memory."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.records: list[dict[str, Any]] = []
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)

    def write(self, record: dict[str, Any]) -> None:
        self.records.append(record)
        if self.path is not None:
            with self.path.open("a", encoding="utf-8") as out:
                out.write(json.dumps(record, sort_keys=True) + "\n")
