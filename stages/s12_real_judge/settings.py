"""The settings of a real judge: one dataclass holds every default and says why. The key and
the endpoint are not settings: they come from OPENAI_API_KEY and OPENAI_BASE_URL, never a file.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import load_toml


@dataclass(frozen=True)
class Settings:
    temperature: float = 0.0  # 0 makes a judge as repeatable as its server allows
    max_tokens: int = 8  # room for a bare number or one word; a longer reply is unscored
    timeout_s: float = 30.0  # per request, then "timed out"; --judge-timeout overrides it
    concurrency: int = 8  # requests in flight at once while the questions are fetched
    max_calls: int = 2000  # the budget: a question past it is unscored "over budget", unasked
    max_tokens_total: int = 0  # a token budget, when the server reports usage; 0 is no limit
    attempts: int = 5  # tries for a 429, a 5xx or a dropped connection (not a refused one)
    backoff_s: float = 0.5  # first wait between tries, doubled each time, with jitter ...
    max_backoff_s: float = 20.0  # ... up to this; a longer Retry-After from the server wins
    journal: str = ".judge-journal.sqlite"  # where replies are kept ("" keeps none)

    def choices(self) -> dict[str, tuple[str, ...]]:
        return {}  # the settings that take one of a few values: none here

    def time_limit(self) -> float:
        """What one request may take: `timeout_s` here; a later stage's may add to it."""
        return self.timeout_s


def load_settings(path: Path | None = None, base: Settings | None = None) -> Settings:
    """The defaults (or `base`, of this kind or a later stage's), with what the TOML file at
    `path` overrides."""
    base = base or Settings()
    if path is None:
        return base
    known = {field.name: field.type for field in fields(base)}
    values: dict[str, Any] = {}
    for name, value in load_toml(path).items():
        if name not in known:
            raise CourseInputError(f"{path}: unknown setting {name!r}; known: {', '.join(known)}")
        kind = type(getattr(base, name))
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)  # `timeout_s = 5` means 5.0
        if not isinstance(value, kind) or isinstance(value, bool):
            raise CourseInputError(f"{path}: {name} must be {kind.__name__}, got {value!r}")
        if value not in base.choices().get(name, (value,)):
            allowed = base.choices()[name]
            raise CourseInputError(f"{path}: {name} must be one of {allowed}, got {value!r}")
        values[name] = value
    return replace(base, **values)
