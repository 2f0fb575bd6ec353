"""The calibration report: the judge and the steady control side by side.

`Report` holds records; `to_json` turns them into the one JSON object the report is written
as, and `render` into the text a person reads. Neither computes: what the text says is what
the records hold. Later stages extend both with the measures they add.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from stages.s08_eval.findings import Finding
from stages.s08_eval.judge import Instrument
from stages.s09_calibration.calibrate import Asking, Run, Unscored
from stages.s09_calibration.measures import Measure, Pairwise, SelfPreference, TwinShift, plain
from stages.s09_calibration.stats import Interval


@dataclass(frozen=True)
class Side:
    """One judge of the report: its run, and what the harness knows of it."""

    run: Run
    asking: Asking  # how it was asked, and the form its replies were read in
    calls_in_all: int  # the rubric change's calls included
    unavailable: str | None = None  # why it stopped being asked, when it did
    instrument: Instrument | None = None  # what the instrument says of itself, if it can

    def to_json(self) -> dict[str, Any]:
        known = {"calls_in_all": self.calls_in_all, "unavailable": self.unavailable}
        described = {} if self.instrument is None else {"instrument": self.instrument.to_json()}
        return {**plain(self.run), "judge": {**plain(self.run.judge), **known, **described}}


@dataclass(frozen=True)
class Report:
    judge: Side
    control: Side  # the steady fake: it must show no bias

    @property
    def not_successful(self) -> list[str]:
        """Why the report cannot be read as a result; empty when it can."""
        found = []
        for label, side in (("judge", self.judge), ("control", self.control)):
            missing = side.run.not_evaluated()
            if side.unavailable:
                found.append(f"{label} {side.unavailable}")
            if len(missing) == len(side.run.measures()):
                found.append(
                    f"nothing was evaluated for the {label}: {side.run.unscored.count} of "
                    f"{side.run.judge.calls} replies unscored"
                )
            elif missing:
                names = ", ".join(name.replace("_", " ") for name in missing)
                found.append(f"not evaluated for the {label}: {names}")
        return found


def to_json(report: Report) -> dict[str, Any]:
    """The report as one JSON object: the judge's measures at the top, the control beside."""
    return {
        **report.judge.to_json(),
        "reply": report.judge.asking.form,
        "control": report.control.to_json(),
        "not_successful": report.not_successful,
    }


def interval(ci: Interval | None) -> str:
    return "n/a" if ci is None else f"[{ci[0]:+.2f}, {ci[1]:+.2f}]"


def number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def unscored_line(unscored: Unscored, hint: str = "") -> str:
    """How many replies were unusable and why, with one as the judge gave it, and what the
    judge was asked for (`hint`, when its form says more than "a number")."""
    if not unscored.count:
        return "0 unscored"
    why = ", ".join(f"{count} {reason}" for reason, count in unscored.reasons.items())
    line = f"{unscored.count} unscored ({why})"
    if unscored.example is not None:
        line += f"; e.g. {unscored.example[:80]!r}"
    return f"{line}; {hint}" if hint else line


def line(name: str, measure: Measure, figures: str) -> str:
    """One measure's line: its figures and verdict, or why it is not evaluated."""
    if measure.state == Finding.NOT_EVALUATED:
        return f"  {name}: NOT EVALUATED — {measure.outcome.reason}"
    lost = measure.outcome.evidence
    counts = f" ({lost.counts()})" if lost.unscored else ""
    return f"  {name}: {figures} — {measure.verdict}{counts}"


def figures(m: Measure) -> str:
    """A measure's figures as the report prints them; its verdict and counts follow."""
    if isinstance(m, TwinShift):
        return f"mean delta {number(m.mean_delta)} {interval(m.ci)}, {m.flips} of {m.n} flip"
    if isinstance(m, Pairwise):
        return (
            f"{m.pairs} pairs in both orders ({m.calls} calls): swap consistency "
            f"{number(m.swap_consistency)}; bullets {m.bullets}, prose {m.prose}, tie {m.tie}"
        )
    assert isinstance(m, SelfPreference), f"no figures for {type(m).__name__}"
    return f"gap {number(m.gap)} {interval(m.ci)} over {m.pairs} equal pairs"


def render_side(label: str, side: Side) -> list[str]:
    """A side's header, the instrument when it described itself, and one line a measure."""
    run = side.run
    unscored = unscored_line(run.unscored, side.asking.hint)
    lines = [f"{label}: {run.judge.name} ({run.judge.calls} calls, {unscored})"]
    if (i := side.instrument) is not None:
        lines.append(
            f"  instrument: {i.model} at {i.endpoint} — {i.requests} requests, {i.paid_calls} "
            f"replies received, {i.from_cache} from {i.kept_in} (the rubric change included)"
        )
    repeats = f" at the gate, each text scored {run.verbosity.repeats} times"
    lines.append(line("verbosity", run.verbosity, figures(run.verbosity) + repeats))
    named = [("concise", run.concise), ("pairwise", run.pairwise)]
    named.append(("self-preference", run.self_preference))
    return lines + [line(name, measure, figures(measure)) for name, measure in named]


SideLines = Callable[[str, Side], list[str]]


def render(
    report: Report, title: str = "Stage 9 — calibration report", side: SideLines = render_side
) -> list[str]:
    """The report's lines: its title, why it is not successful if it is not, both sides."""
    lines = [title]
    first, *more = report.not_successful or [""]
    if first:
        lines += [f"RUN IS NOT SUCCESSFUL: {first}", *(f"  and: {reason}" for reason in more)]
    return [*lines, "", *side("judge", report.judge), "", *side("control", report.control)]
