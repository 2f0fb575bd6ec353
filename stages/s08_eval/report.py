"""The report: every case in the denominator, every state shown, both halves of each detector.

`build` runs everything and returns one plain dict: the `--json` object and the file written;
render.py turns that dict, and nothing else, into text.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from stages.s08_eval import position as position_file
from stages.s08_eval.cases import CaseRun
from stages.s08_eval.findings import Finding
from stages.s08_eval.judge import CountingJudge
from stages.s08_eval.length import LengthPair, LengthResult, length_bias, load_length_pairs
from stages.s08_eval.levels import Level, State, end_to_end, evaluate
from stages.s08_eval.position import PositionPair, PositionResult, position_bias
from stages.s08_eval.render import describe_length, describe_position
from stages.s08_eval.sampling import sampler_check
from stages.s08_eval.specs import JudgeChoice
from stages.s08_eval.survey import Survey, survey

SIDES = ("judge", "control")


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
    sides = {"judge": judge, "control": control}
    position = {side: position_bias(asked, position_pairs) for side, asked in sides.items()}
    length = {side: length_bias(asked, length_pairs) for side, asked in sides.items()}
    flakiness = _flakiness(runs, rows, judge, fake)  # asks the judge again: before counting
    report = {
        "cases": {"total": len(rows), "edge": sum(row["edge"] for row in rows)},
        # `unavailable` would say why a judge stopped being asked; one called directly never is
        "judge": {"name": judge.name, "calls": judge.calls, "unavailable": None},
        "control": {"name": control.name, "calls": control.calls, "unavailable": None},
        "levels": level_counts(rows),
        "position_bias": {side: _position(result) for side, result in position.items()},
        "length_bias": {side: _length(result) for side, result in length.items()},
        "trace_survey": asdict(survey),
        "sampling": sampler_check(fake),
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


def evaluation(runs: list[CaseRun], chosen: JudgeChoice, control: JudgeChoice) -> dict[str, Any]:
    """The report for these runs, with the judge measured and the control as its mirror."""
    return build(
        runs,
        CountingJudge(chosen.judge, chosen.name),
        CountingJudge(control.judge, control.name),
        fake=chosen.fake,
        position_pairs=position_file.load_position_pairs(),
        length_pairs=load_length_pairs(),
        survey=survey(),
    )


def failures(report: dict[str, Any]) -> list[str]:
    """Why this run cannot be read as a result; empty when it can. A detector not evaluated
    counts on either side: a control that could not answer proves nothing either."""
    found = [
        f"{side} {report[side]['unavailable']}" for side in SIDES if report[side]["unavailable"]
    ]
    if not evaluated_anything(report):
        found.append("nothing was evaluated")
    judged = report["levels"][Level.END_TO_END]
    if report["cases"]["total"] and judged[State.PASSED] + judged[State.FAILED] == 0:
        found.append(f"no case could be judged ({judged[State.UNSCORED]} unscored)")
    for detector in ("position_bias", "length_bias"):
        for side in SIDES:
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
    return {
        "id": run.case.id,
        "edge": run.edge,
        "signals": run.edge_signals,
        "label": run.case.label,
        "answer": run.trajectory.answer,
        "levels": {str(level): asdict(verdict) for level, verdict in evaluate(run, judge).items()},
    }


def _position(result: PositionResult) -> dict[str, Any]:
    tally = {"flips": result.flips, "pairs": result.pairs, "unscored": result.unscored}
    return {"state": str(result.state), "reason": result.reason, **tally}


def _length(result: LengthResult) -> dict[str, Any]:
    tally = {"found": result.found, "pairs": result.pairs, "unscored": result.unscored}
    gaps = [
        {"before": gap.before, "after": gap.after, "extra_chars": gap.extra_chars}
        for gap in result.gaps
    ]
    return {"state": str(result.state), "reason": result.reason, **tally, "gaps": gaps}


def _flakiness(
    runs: list[CaseRun], rows: list[dict[str, Any]], judge: CountingJudge, fake: bool
) -> dict[str, Any]:
    """Judge every answer again: a fake must repeat itself exactly."""
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
