"""Your judge changed: a calibration history, one JSON line per run, kept with your code.

`calibrate --history FILE` and `gate --history FILE` each append a record of the run:

    when             the time of the run (UTC)
    command          calibrate or gate
    fingerprint      what the judge is: its SPEC, model and endpoint host (never the key),
                     every setting that changes its replies, and hashes of the prompts it is
                     sent and of the rubric
    calibration_set  a hash of the calibration cases and their twins: a changed set is a
                     different measurement
    figures          kappa with its bootstrap interval, the verbosity and concise deltas with
                     theirs, flips of N, swap consistency, the unscored share, and the scores
                     (the judge's mean score of each calibration answer, for `windows`)

A calibration whose fingerprint differs from the one before it starts a new baseline, and
its record also keeps the flip threshold later runs are held to, with how it was set. The
records, and how a line is read and refused, are in records.py.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sys
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import append_line, dumps, parse_jsonl, read_text
from stages.s08_eval.levels import PASS_MARK
from stages.s08_eval.specs import JudgeChoice
from stages.s09_calibration.calibration import CALIBRATION_FILE
from stages.s09_calibration.twins import TWINS_FILE
from stages.s10_agreement.kappa import kappa_interval
from stages.s10_agreement.people import AgreedRun
from stages.s10_agreement.rubrics import Rubric, prompt
from stages.s12_real_judge import prompts
from stages.s16_history.records import Command, Entry, Figures, Fingerprint, FlipThreshold


def digest(*texts: str) -> str:
    """A short hash of some texts: equal texts, equal hash; any change, another."""
    return hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:16]


def fingerprint(choice: JudgeChoice, reply: str) -> Fingerprint:
    """What makes the judge this instrument. A judge behind stage 12's guard is read inside."""
    inner = getattr(choice.judge, "judge", choice.judge)
    settings = getattr(inner, "settings", None)
    sent = inner.reply_settings() if hasattr(inner, "reply_settings") else {}
    wire = [repr(getattr(prompts, name)) for name in sorted(dir(prompts)) if name.isupper()]
    return Fingerprint(
        spec=choice.name,
        model=str(getattr(inner, "model", choice.name)),
        # a local model is known by its file's hash, not by the port it was served on
        endpoint=str(getattr(inner, "identity", getattr(inner, "endpoint", "in process"))),
        settings={**sent, "reply": reply, "structured": getattr(settings, "structured", "")},
        prompts=digest(*wire) if hasattr(inner, "endpoint") else "none: asked in process",
        rubric=digest(prompt(Rubric.OPEN, "", ())),
    )


def calibration_set() -> str:
    return digest(*(path.read_text(encoding="utf-8") for path in (CALIBRATION_FILE, TWINS_FILE)))


def figures(run: AgreedRun) -> Figures:
    """The figures of one calibration run, as the history keeps them."""
    series = list(zip(run.series.original, run.series.padded, run.series.human_pass, strict=True))
    scored = [(person, score) for (_, score), _, person in series if score is not None]
    people, judged = [p for p, _ in scored], [s >= PASS_MARK for _, s in scored]
    v, c, calls = run.verbosity, run.concise, run.judge.calls
    return Figures(
        kappa=run.calibration.kappa,
        kappa_ci=kappa_interval(people, judged),
        verbosity=v.mean_delta,
        verbosity_ci=v.ci,
        concise=c.mean_delta,
        concise_ci=c.ci,
        flips=v.flips if v.verdict is not None else None,
        of=v.n,
        swap_consistency=run.pairwise.swap_consistency,
        unscored_share=run.unscored.count / calls if calls else None,
        scores=tuple(score for _, score in scored),
        agreed=tuple(
            None if a is None else float((a >= PASS_MARK) == p) for (_, a), _, p in series
        ),
        shifts=tuple(None if a is None or b is None else b - a for (_, a), (_, b), _ in series),
    )


def entry(command: Command, choice: JudgeChoice, reply: str, run: AgreedRun) -> Entry:
    """The record of one run; `when` is now, to the second, in UTC."""
    now = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
    return Entry(now, command, fingerprint(choice, reply), calibration_set(), figures(run))


def load(path: Path) -> list[Entry]:
    """The records of a history file, oldest first; none when the file does not exist yet.
    A line that is not a record is an error naming the file and the record's number, except
    a last line cut short (a run stopped while appending it), which is named and left out."""
    if not path.exists():
        return []
    text = read_text(path)
    cut = torn(text)
    if cut is not None:
        line = text[:cut].count("\n") + 1
        print(
            f"warning: --history {path}:{line}: the last line is cut short (a run stopped while "
            f"writing it); read the {line - 1} records before it, and the next one replaces it",
            file=sys.stderr,
        )
        text = text[:cut]
    lines = enumerate(parse_jsonl(text, path), start=1)
    return [Entry.from_json(line, f"{path}: record {number}") for number, line in lines]


def torn(text: str) -> int | None:
    """Where a last line cut short starts: one without its line end that is not JSON; None
    when the last line is whole."""
    start = text.rfind("\n") + 1
    try:
        json.loads(text[start:] or "{}")
    except (ValueError, RecursionError):
        return start
    return None


def calibrations(records: list[Entry]) -> list[Entry]:
    return [record for record in records if record.command == Command.CALIBRATE]


def baseline(records: list[Entry]) -> Entry | None:
    """The first calibration of the judge as last calibrated: later runs are held to it."""
    found = calibrations(records)
    if not found:
        return None
    last = found[-1].fingerprint, found[-1].calibration_set
    same = [r for r in found if (r.fingerprint, r.calibration_set) == last]
    return same[0]


def with_threshold(new: Entry, records: list[Entry]) -> Entry:
    """A calibration that starts a baseline keeps the flip threshold, and how it was set."""
    if new.command != Command.CALIBRATE or baseline([*records, new]) is not new:
        return new
    flips, of = new.figures.flips, new.figures.of
    if flips is None or not of:
        how = "not set: this calibration's flips were not evaluated"
        return replace(new, flip_threshold=FlipThreshold(None, how))
    how = f"the share of this first calibration, {flips} of {of}: a later run may not flip more"
    return replace(new, flip_threshold=FlipThreshold(flips / of, how))


def append(path: Path, record: Entry) -> None:
    """Add one line to the history (record.to_json): whole, or not at all (files.append_line),
    and the lines before it never rewritten. A last line cut short, which load() named, is
    cut off first, so that the new line starts on a line of its own. Writers take turns (a
    lock on the file): a line another run is still writing is never taken for a tear."""
    line = dumps(record.to_json(), sort_keys=True) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("ab") as turn:
            fcntl.flock(turn, fcntl.LOCK_EX)  # until this writer closes it
            text = read_text(path)
            cut = torn(text)
            if cut is not None:
                os.truncate(path, path.stat().st_size - len(text[cut:].encode("utf-8")))
            elif text and not text.endswith("\n"):
                line = "\n" + line  # a whole last line saved without its line end
            append_line(path, line)
    except OSError as error:
        raise CourseInputError(f"--history {path}: cannot write ({error.strerror})") from None
    except CourseInputError as error:
        raise CourseInputError(f"--history {error}") from None
