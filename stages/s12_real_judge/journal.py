"""The journal: every paid reply on disk the moment it arrives, so that a run killed and run
again pays for none twice. Keys hash what was asked (client.py's `key`): no API key is in it."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path


class Journal:
    """Replies by key, in SQLite; each one committed as soon as it is stored."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        # In WAL mode, NORMAL keeps every committed reply through a killed process (only a
        # power cut can lose the last few); FULL would wait for the disk at every reply.
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, reply TEXT)")
        self.lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self.lock:
            row = self.db.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def put(self, key: str, reply: str) -> None:
        with self.lock:
            self.db.execute("INSERT OR REPLACE INTO replies VALUES (?, ?)", (key, reply))
