"""Printing a run the way a student reads it."""

from __future__ import annotations

from stages.s03_loop.agent import Outcome


def show(task: str, outcome: Outcome) -> None:
    """Print a run as a student reads it: the task, each step, how it stopped."""
    print(f"task: {task}")
    for number, step in enumerate(outcome.steps):
        label = f"{step.kind}" + (f" {step.tool}" if step.tool else "")
        print(f"  {number}. {label}: {step.text}")
    print(f"  stopped: {outcome.stopped}; answer: {outcome.answer!r}\n")
