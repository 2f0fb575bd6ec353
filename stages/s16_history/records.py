"""The records of a calibration history, each one the JSON object of a line of the file.

A line is an Entry: when, which command, the judge's Fingerprint, a hash of the calibration
set and the run's Figures; a calibration that starts a baseline adds its FlipThreshold, and a
gate its verdict. `to_json` gives a line's object, `from_json` reads one back; a line that is
not an entry is refused with the file and the record's number, naming the first field it
lacks. A figure that could not be measured is None, null on the line, n/a in a table: never 0.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from stages.s01_model.errors import CourseInputError
from stages.s01_model.model import Name
from stages.s01_model.shapes import lacking, misfit, values
from stages.s09_calibration.measures import plain

Interval = tuple[float, float]


class Command(Name):
    """Which command wrote the line."""

    CALIBRATE = "calibrate"  # measured the judge; the first of a judge starts a baseline
    GATE = "gate"  # measured it and held it to the baseline


@dataclass(frozen=True)
class Fingerprint:
    """What makes the judge this instrument (history.fingerprint): if any part differs, the
    calibration on file measured another one."""

    spec: str  # the SPEC it was chosen by
    model: str
    endpoint: str  # the endpoint's host, a local model's file hash, or "in process"
    settings: dict[str, Any]  # every setting that changes its replies; never the key
    prompts: str  # a hash of the prompts sent on the wire, or why there is none
    rubric: str  # a hash of the rubric

    def to_json(self) -> dict[str, Any]:
        return {f.name: plain(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Fingerprint:
        return cls(**values(cls, data))


@dataclass(frozen=True)
class Figures:
    """The figures of one run (history.figures): the six the table shows, then their
    intervals, N and the scores. None where a figure could not be measured."""

    kappa: float | None
    verbosity: float | None  # the mean shift of a padded twin's score
    concise: float | None  # the mean shift of a concise twin's score
    flips: int | None  # answers whose pass/fail a padded twin changed
    swap_consistency: float | None
    unscored_share: float | None  # of the calls made
    kappa_ci: Interval | None
    verbosity_ci: Interval | None
    concise_ci: Interval | None
    of: int  # originals whose padded twin was scored too: the N of the flips
    scores: tuple[float, ...]  # the judge's mean score of each answer it scored (windows)
    # per answer: agreed with the person (1, 0), and its twin's gain; None: unscored or older
    agreed: tuple[float | None, ...] = ()
    shifts: tuple[float | None, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {f.name: plain(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Figures:
        return cls(**values(cls, data))


FIGURES = tuple(f.name for f in fields(Figures)[:6])  # the figures a table and plots show


@dataclass(frozen=True)
class FlipThreshold:
    """The share of flips later runs may not exceed, and how it was set."""

    share: float | None  # None when the baseline's flips were not evaluated
    how: str

    def to_json(self) -> dict[str, Any]:
        return {"share": self.share, "how": self.how}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FlipThreshold:
        return cls(data["share"], data["how"])


@dataclass(frozen=True)
class Entry:
    """One run: one line of the history."""

    when: str  # the time of the run, UTC, to the second (ISO 8601)
    command: Command
    fingerprint: Fingerprint
    calibration_set: str  # a hash of the calibration cases and their twins
    figures: Figures
    flip_threshold: FlipThreshold | None = None  # kept by a calibration that starts a baseline
    passed: bool | None = None  # a gate's verdict; a calibration has none

    def to_json(self) -> dict[str, Any]:
        """The line's object; a threshold and a verdict only on the lines that have one."""
        shown = {f.name: plain(getattr(self, f.name)) for f in fields(self)}
        shown["command"] = str(self.command)
        return {name: value for name, value in shown.items() if value is not None}

    @classmethod
    def from_json(cls, data: dict[str, Any], where: str = "a history line") -> Entry:
        """The entry of a line's object; `where` names the line in an error (see refuse)."""
        refuse(data, where)
        threshold = data.get("flip_threshold")
        return cls(
            data["when"],
            Command(data["command"]),
            Fingerprint.from_json(data["fingerprint"]),
            data["calibration_set"],
            Figures.from_json(data["figures"]),
            None if threshold is None else FlipThreshold.from_json(threshold),
            data.get("passed"),
        )


def refuse(data: dict[str, Any], where: str) -> None:
    """A CourseInputError naming `where` (the file and the record's number) and the first
    problem of a line that is not an entry: a field it lacks, a command that is neither, a
    part that is not an object, or a part that lacks one of its fields."""
    missing = lacking(Entry, data)
    if missing or data["command"] not in [str(c) for c in Command]:
        why = f"lacks {missing!r}" if missing else f"command {data['command']!r}"
        raise CourseInputError(f"{where} {why}: not a calibration history")
    if not isinstance(data["fingerprint"], dict) or not isinstance(data["figures"], dict):
        raise CourseInputError(f"{where}: fingerprint and figures are objects")
    threshold = data.get("flip_threshold")
    if threshold is not None and not isinstance(threshold, dict):
        raise CourseInputError(f"{where}: flip_threshold is an object: its share and how")
    parts: list[tuple[str, type[Any], dict[str, Any]]] = [
        ("figures", Figures, data["figures"]),
        ("fingerprint", Fingerprint, data["fingerprint"]),
    ]
    if threshold is not None:
        parts.append(("flip_threshold", FlipThreshold, threshold))
    for part_name, kind, part in parts:
        if (name := lacking(kind, part)) is not None:
            raise CourseInputError(f"{where}: no {part_name}.{name}")
    for prefix, kind, part in [("", Entry, data), *((f"{n}.", k, p) for n, k, p in parts)]:
        if (wrong := misfit(kind, part)) is not None:  # every key there, each of its type
            raise CourseInputError(f"{where}: {prefix}{wrong}")
