"""The report: every case in the denominator, every state shown, both halves of each detector.

`evaluation` runs everything and returns a `Report` of records, with no text in it: `to_json`
makes it the `--json` object and the file written, render.py the text. A later stage that
learns more of a judge (why it stopped being asked, what it says of itself) replaces the
judge's `Side` with `dataclasses.replace`; nothing edits a report once it is built.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from stages.s08_eval.cases import CaseRun
from stages.s08_eval.findings import Finding
from stages.s08_eval.judge import CountingJudge, Instrument
from stages.s08_eval.length import LengthResult, length_bias, load_length_pairs
from stages.s08_eval.levels import Level, State, end_to_end, evaluate
from stages.s08_eval.position import PositionResult, load_position_pairs, position_bias
from stages.s08_eval.sampling import sampler_check
from stages.s08_eval.specs import JudgeChoice
from stages.s08_eval.survey import Survey, survey


@dataclass(frozen=True)
class Side:
    """One judge the report asked, and what the two detectors found in it."""

    name: str
    calls: int  # every question put to it, the repeats of the flakiness check included
    position: PositionResult
    length: LengthResult
    unavailable: str | None = None  # why it stopped being asked; one called directly never does
    instrument: Instrument | None = None  # what a judge that describes itself says of it

    def to_json(self) -> dict[str, Any]:
        side = {"name": self.name, "calls": self.calls, "unavailable": self.unavailable}
        described = {} if self.instrument is None else {"instrument": self.instrument.to_json()}
        return {**side, **described}


@dataclass(frozen=True)
class Report:
    """Stage 8's evaluation: both judges, every case, and the checks on the harness itself."""

    judge: Side
    control: Side  # the mirrored half: a detector that finds bias here is broken
    results: list[dict[str, Any]]  # one row a case, as in the JSON: its edge, answer, verdicts
    trace_survey: Survey
    sampling: dict[str, Any]  # the sampler run on made-up requests (sampling.py)
    flakiness: dict[str, Any]  # whether the judge repeats its verdicts, when that can be known

    @property
    def sides(self) -> dict[str, Side]:
        return {"judge": self.judge, "control": self.control}

    @property
    def levels(self) -> dict[str, dict[str, int]]:
        """Per level, how many cases ended in each state. Every case counts once in every level."""
        counts = {level.value: {state.value: 0 for state in State} for level in Level}
        for row in self.results:
            for level, verdict in row["levels"].items():
                counts[level][verdict["state"]] += 1
        return counts

    @property
    def detector_broken(self) -> list[str]:
        """The detectors that find bias in the control, which has none."""
        control = self.control
        states = {"position_bias": control.position.state, "length_bias": control.length.state}
        return [name for name, state in states.items() if state == Finding.FOUND]

    @property
    def not_successful(self) -> list[str]:
        """Why this run cannot be read as a result; empty when it can. A detector not evaluated
        counts on either side: a control that could not answer proves nothing either."""
        sides = self.sides.items()
        found = [f"{label} {side.unavailable}" for label, side in sides if side.unavailable]
        if not any(counts[State.PASSED] + counts[State.FAILED] for counts in self.levels.values()):
            found.append("nothing was evaluated")  # no level of any case was passed or failed
        judged = self.levels[Level.END_TO_END]
        if self.results and judged[State.PASSED] + judged[State.FAILED] == 0:
            found.append(f"no case could be judged ({judged[State.UNSCORED]} unscored)")
        for name in ("position", "length"):
            for label, side in sides:
                if getattr(side, name).state == Finding.NOT_EVALUATED:
                    found.append(f"{name} bias ({label}) not evaluated")
        return found + [
            f"the control shows {name.replace('_', ' ')}: the detector is broken"
            for name in self.detector_broken
        ]

    def to_json(self) -> dict[str, Any]:
        sides = self.sides.items()
        return {
            "cases": {"total": len(self.results), "edge": sum(row["edge"] for row in self.results)},
            **{label: side.to_json() for label, side in sides},
            "levels": self.levels,
            "position_bias": {label: _position(side.position) for label, side in sides},
            "length_bias": {label: _length(side.length) for label, side in sides},
            "trace_survey": asdict(self.trace_survey),
            "sampling": self.sampling,
            "flakiness": self.flakiness,
            "detector_broken": self.detector_broken,
            "results": self.results,
            "not_successful": self.not_successful,
        }


def evaluation(runs: list[CaseRun], chosen: JudgeChoice, control: JudgeChoice) -> Report:
    """Every case on every level with the chosen judge; both detectors on it and on the control."""
    judge, mirror = (CountingJudge(choice.judge, choice.name) for choice in (chosen, control))
    rows = [_row(run, judge) for run in runs]
    positions, lengths = load_position_pairs(), load_length_pairs()
    found = {j: (position_bias(j, positions), length_bias(j, lengths)) for j in (judge, mirror)}
    flakiness = _flakiness(runs, rows, judge, chosen.fake)  # asks again: before counting calls
    judged, controlled = (Side(j.name, j.calls, *found[j]) for j in (judge, mirror))
    return Report(judged, controlled, rows, survey(), sampler_check(chosen.fake), flakiness)


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
    gaps = [{k: v for k, v in asdict(gap).items() if k != "task"} for gap in result.gaps]
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
