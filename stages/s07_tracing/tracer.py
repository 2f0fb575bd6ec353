"""A trace you can evaluate: every line says which run it belongs to and where in it.

The earlier stages wrote traces that a person could read but a program could not group:
step numbers restart, turns restart, timestamps interleave. Here each line carries

    run_id   the run it belongs to (a fresh one per task)
    seq      its position in that run, from 0, with no gaps
    kind     what happened (tool_result, tool_error, blocked, answer, refusal, ...)

so that a file holding many runs can be split back into them, and a missing or repeated
line shows up as a gap in `seq`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import read_jsonl
from stages.s01_model.trace import JsonlTrace

FIELDS = ("run_id", "seq", "kind", "tool", "arguments", "text", "attempts")


@dataclass(frozen=True)
class TraceStep:
    """One line of the trace."""

    run_id: str
    seq: int
    kind: str
    tool: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    # Tries a tool call took: 0 when the gate stopped it before anything ran (unknown tool,
    # bad arguments, blocked); None for steps that name no tool (answer, run_limit, ...).
    attempts: int | None = None


def new_run_id() -> str:
    return uuid.uuid4().hex[:12]


class Tracer:
    """Numbers the steps of one run at a time and writes each as a JSONL line."""

    def __init__(self, trace: JsonlTrace | None = None) -> None:
        self.trace = trace if trace is not None else JsonlTrace()
        self.run_id = ""
        self.steps: list[TraceStep] = []

    def begin(self, run_id: str | None = None) -> str:
        self.run_id = run_id or new_run_id()
        self.steps = []
        return self.run_id

    def emit(
        self,
        kind: str,
        tool: str | None = None,
        arguments: dict[str, Any] | None = None,
        text: str = "",
        attempts: int | None = None,
    ) -> TraceStep:
        if not self.run_id:
            raise RuntimeError("Tracer.emit before Tracer.begin: no run to attach the step to")
        step = TraceStep(
            self.run_id, len(self.steps), str(kind), tool, dict(arguments or {}), text, attempts
        )
        self.steps.append(step)
        self.trace.write(
            {
                "run_id": step.run_id,
                "seq": step.seq,
                "kind": step.kind,
                "tool": step.tool,
                "arguments": step.arguments,
                "text": step.text,
                "attempts": step.attempts,
            }
        )
        return step


def read_trace(path: Path) -> dict[str, list[TraceStep]]:
    """Split a trace file back into runs, each in `seq` order.

    A line missing a field, or a run whose `seq` has a gap or a repeat, is an error naming
    the file and the run: a trace with holes is not evidence of anything.
    """
    runs: dict[str, list[TraceStep]] = {}
    for number, record in enumerate(read_jsonl(path), start=1):
        missing = [name for name in FIELDS if name not in record]
        if missing:
            raise CourseInputError(f"{path}: record {number}: missing field {missing[0]!r}")
        step = TraceStep(**{name: record[name] for name in FIELDS})
        runs.setdefault(step.run_id, []).append(step)
    for run_id, steps in runs.items():
        steps.sort(key=lambda step: step.seq)
        seqs = [step.seq for step in steps]
        if seqs != list(range(len(steps))):
            raise CourseInputError(
                f"{path}: run {run_id}: seq is {seqs}, expected 0..{len(steps) - 1}"
            )
    return runs
