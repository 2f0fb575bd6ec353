"""The report: every case in the denominator, every state shown, both halves of each detector.

`build` runs everything and returns one plain dict (the `--json` object, and the file the
report is written to); `render` turns that dict into the text a person reads. Nothing in
`render` computes: what it prints is what the file holds.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

from stages.s01_model.errors import CourseInputError
from stages.s08_eval.cases import CaseRun
from stages.s08_eval.detectors import (
    LengthPair,
    LengthResult,
    PositionPair,
    PositionResult,
    describe_length,
    describe_position,
    length_bias,
    position_bias,
)
from stages.s08_eval.findings import Finding
from stages.s08_eval.judge import CountingJudge
from stages.s08_eval.levels import Level, State, end_to_end, evaluate
from stages.s08_eval.sampling import RATE, TOLERANCE, sample
from stages.s08_eval.survey import Survey

SAMPLE_REQUESTS = 1000
SAMPLE_SEED = 8


def build(
    runs: list[CaseRun],
    judge: CountingJudge,
    control: CountingJudge,
    *,
    fake: bool,
    position_pairs: list[PositionPair],
    length_pairs: list[LengthPair],
    survey: Survey,
) -> dict[str, Any]:
    """Evaluate every case on every level, run both detectors twice, and gather it all."""
    rows = [_row(run, judge) for run in runs]
    position = {"judge": position_bias(judge, position_pairs)}
    length = {"judge": length_bias(judge, length_pairs)}
    position["control"] = position_bias(control, position_pairs)
    length["control"] = length_bias(control, length_pairs)
    flakiness = _flakiness(runs, rows, judge, fake)  # asks the judge again: before counting
    report = {
        "cases": {"total": len(rows), "edge": sum(row["edge"] for row in rows)},
        "judge": {"name": judge.name, "calls": judge.calls, "unavailable": None},
        "control": {"name": control.name, "calls": control.calls, "unavailable": None},
        "levels": level_counts(rows),
        "position_bias": {side: _position(result) for side, result in position.items()},
        "length_bias": {side: _length(result) for side, result in length.items()},
        "trace_survey": asdict(survey),
        "sampling": _sampling(fake),
        "flakiness": flakiness,
        "detector_broken": [
            name
            for name, results in (("position_bias", position), ("length_bias", length))
            if results["control"].state == Finding.FOUND
        ],
        "results": rows,
        "text": {
            "position_bias": {side: describe_position(r) for side, r in position.items()},
            "length_bias": {side: describe_length(r) for side, r in length.items()},
        },
    }
    report["not_successful"] = failures(report)
    return report


def failures(report: dict[str, Any]) -> list[str]:
    """Why this run cannot be read as a result; empty when it can.

    A judge that stopped being asked (guard.py's breaker); nothing evaluated at all; a
    judged level with no case judged; a detector that had too little usable data (on either
    side: a control that could not answer proves nothing either); a control that shows bias.
    """
    found = [
        f"{side} {report[side]['unavailable']}"
        for side in ("judge", "control")
        if report[side]["unavailable"]
    ]
    if not evaluated_anything(report):
        found.append("nothing was evaluated")
    judged = report["levels"][Level.END_TO_END]
    if report["cases"]["total"] and judged[State.PASSED] + judged[State.FAILED] == 0:
        found.append(f"no case could be judged ({judged[State.UNSCORED]} unscored)")
    for detector in ("position_bias", "length_bias"):
        for side in ("judge", "control"):
            if report[detector][side]["state"] == Finding.NOT_EVALUATED:
                found.append(f"{detector.replace('_', ' ')} ({side}) not evaluated")
    found += [
        f"the control shows {name.replace('_', ' ')}: the detector is broken"
        for name in report["detector_broken"]
    ]
    return found


def level_counts(rows: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per level, how many cases ended in each state. Every case counts once in every level."""
    counts = {level.value: {state.value: 0 for state in State} for level in Level}
    for row in rows:
        for level, verdict in row["levels"].items():
            counts[level][verdict["state"]] += 1
    return counts


def evaluated_anything(report: dict[str, Any]) -> bool:
    """True when at least one level of one case was passed or failed."""
    return any(
        counts[State.PASSED] + counts[State.FAILED] > 0 for counts in report["levels"].values()
    )


def _row(run: CaseRun, judge: CountingJudge) -> dict[str, Any]:
    verdicts = evaluate(run, judge)
    return {
        "id": run.case.id,
        "edge": run.edge,
        "signals": run.edge_signals,
        "label": run.case.label,
        "answer": run.trajectory.answer,
        "levels": {str(level): asdict(verdict) for level, verdict in verdicts.items()},
    }


def _position(result: PositionResult) -> dict[str, Any]:
    return {
        "state": str(result.state),
        "reason": result.reason,
        "flips": result.flips,
        "pairs": result.pairs,
        "unscored": result.unscored,
    }


def _length(result: LengthResult) -> dict[str, Any]:
    gaps = [
        {"before": gap.before, "after": gap.after, "extra_chars": gap.extra_chars}
        for gap in result.gaps
    ]
    return {
        "state": str(result.state),
        "reason": result.reason,
        "found": result.found,
        "pairs": result.pairs,
        "unscored": result.unscored,
        "gaps": gaps,
    }


def _sampling(fake: bool) -> dict[str, Any]:
    requests = [f"request-{n:04d}" for n in range(SAMPLE_REQUESTS)]
    sent = len(sample(requests, SAMPLE_SEED))
    # The sampler is verified in-process; a real deployment's sampling is not seen here.
    state = sampling_state(sent, SAMPLE_REQUESTS) if fake else State.NOT_EVALUATED
    return {"requests": SAMPLE_REQUESTS, "sent": sent, "state": str(state)}


def sampling_state(sent: int, requests: int) -> State:
    """Passed when the count is near the target and not exactly on it (that is a schedule)."""
    target = round(requests * RATE)
    near = abs(sent - target) <= TOLERANCE and sent != target
    return State.PASSED if near else State.FAILED


def _flakiness(
    runs: list[CaseRun], rows: list[dict[str, Any]], judge: CountingJudge, fake: bool
) -> dict[str, Any]:
    if not fake:
        # Two identical runs of a real judge would not show it is deterministic.
        return {"state": str(State.NOT_EVALUATED), "repeats": 0}
    again = [str(end_to_end(run, judge).state) for run in runs]
    first = [row["levels"][Level.END_TO_END]["state"] for row in rows]
    return {"state": str(State.PASSED if again == first else State.FAILED), "repeats": 2}


def first_reason(reasons: list[str]) -> str:
    """The first reason a run is not successful, and how many more the report lists."""
    more = f" (and {len(reasons) - 1} more in the report)" if len(reasons) > 1 else ""
    return reasons[0] + more


def calls(side: dict[str, Any]) -> str:
    """A judge's call count; for a real instrument, the requests it made and what came back."""
    instrument = side.get("instrument")
    if instrument is None:
        return f"{side['calls']} calls"
    return (
        f"{side['calls']} questions: {instrument['requests']} requests to "
        f"{instrument['endpoint']}, {instrument['paid_calls']} replies received, "
        f"{instrument['from_cache']} from the journal"
    )


def writable(path: Path, option: str) -> Path:
    """`path`, once it is known that a file can be written there: checked before any work.

    Its folder is made if missing. A folder in its place, a file where a folder should be,
    or a folder without write permission is a CourseInputError naming the option.
    """
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
    return path


def write_text(path: Path, text: str) -> None:
    """Write a UTF-8 file (and its folder); a place that cannot be written is a CourseInputError."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")  # pragma: no mutate (the encoding's spelling)
    except OSError as error:
        raise CourseInputError(f"{path}: cannot write ({error.strerror})") from None


def write(report: dict[str, Any], path: Path) -> None:
    # Not mutated by the mutmut sweep: indentation and key order are presentation; what the
    # file holds is checked by reading it back.
    write_text(path, json.dumps(report, indent=2, sort_keys=True) + "\n")  # pragma: no mutate


def render(report: dict[str, Any]) -> str:
    """The report as text, from the dict alone."""
    total = report["cases"]["total"]
    judge, control = report["judge"], report["control"]
    lines = ["Stage 8 — evaluation report"]
    first, *more = report["not_successful"] or [""]
    if first:
        lines.append(f"RUN IS NOT SUCCESSFUL: {first}")
        lines += [f"  and: {reason}" for reason in more]
    lines += [
        f"judge: {judge['name']} ({calls(judge)}) · control: {control['name']} ({calls(control)})",
        f"cases: {total}, {report['cases']['edge']} of them edge cases "
        "(read from the trajectories)",
        "",
        f"{'level':<12} {'passed':>7} {'failed':>7} {'unscored':>9} {'not_evaluated':>14}",
    ]
    for level, counts in report["levels"].items():
        lines.append(
            f"{level:<12} {counts['passed']:>7} {counts['failed']:>7} "
            f"{counts['unscored']:>9} {counts['not_evaluated']:>14}"
        )
    lines += [f"(every level counts all {total} cases)", ""]
    for detector in ("position_bias", "length_bias"):
        lines.append(f"{detector.replace('_', ' ')}:")
        for side in ("judge", "control"):
            name = report[side]["name"]
            text = report["text"][detector][side]
            first, *rest = [text] if isinstance(text, str) else text
            lines.append(f"  {side:<7} ({name}): {first}")
            lines += [f"    {line.strip()}" for line in rest]
    for detector in report["detector_broken"]:
        lines.append(
            f"THE {detector.replace('_', ' ').upper()} DETECTOR IS BROKEN: the control shows bias"
        )
    survey = report["trace_survey"]
    fields = sorted({field for fields in survey["stages"].values() for field in fields})
    lines += [
        "",
        f"trace survey: {len(survey['stages'])} earlier stages write traces, "
        f"{len(fields)} distinct fields",
    ]
    lines += [f"  {stage}: {', '.join(found)}" for stage, found in survey["stages"].items()]
    lines.append(f"  no run key: {', '.join(survey['without_run_key']) or 'none'}")
    sampling, flakiness = report["sampling"], report["flakiness"]
    share = sampling["sent"] / sampling["requests"]
    lines += [
        f"sampling: {sampling['sent']} of {sampling['requests']} requests sent to the judge "
        f"({share:.1%}) — {sampling['state']}",
        f"flakiness: repeated judging, identical verdicts? — {flakiness['state']}",
    ]
    disagree = [r for r in report["results"] if r["label"] and (r["label"] == "edge") != r["edge"]]
    for row in disagree:
        shows = ", ".join(row["signals"]) or "none"
        lines.append(
            f"label ignored: {row['id']} is labelled {row['label']}; its trace shows {shows}"
        )
    lines += ["", f"{'case':<22} {'edge':<5} {'end_to_end':<11} {'trajectory':<11} component"]
    for row in report["results"]:
        states = [row["levels"][level.value]["state"] for level in Level]
        lines.append(
            f"{row['id']:<22} {'yes' if row['edge'] else '':<5} "
            + " ".join(f"{s:<11}" for s in states).rstrip()
        )
    return "\n".join(lines)
