"""A calibration history read back: one line per run, and with --plots a PNG per figure.

A record whose judge differs from the record before it is marked `*`, with what changed:
the figures either side of that line are of two different instruments.
"""

from __future__ import annotations

from pathlib import Path

from stages.s09_calibration.report import interval, number
from stages.s16_history.records import FIGURES, Entry, Figures
from stages.s16_history.staleness import changes


def cell(figures: Figures, name: str) -> str:
    """One figure as the table prints it: the value, and its interval when it has one."""
    if name == "flips":
        flips, of = figures.flips, figures.of
        return "n/a" if flips is None else f"{flips} of {of}"
    value, ci = getattr(figures, name), getattr(figures, name + "_ci", None)
    return number(value) if value is None or ci is None else f"{number(value)} {interval(ci)}"


def table(records: list[Entry]) -> list[str]:
    """Every run, oldest first, its figures below it, each judge change named where it
    happened."""
    lines = [f"{len(records)} runs; * marks a judge that differs from the run before"]
    for index, (record, changed) in enumerate(zip(records, changed_at(records), strict=True)):
        passed = record.passed  # a gate's; a calibration has none
        verdict = "" if passed is None else (", passed" if passed else ", FAILED")
        lines.append(f"{'*' if changed else ' '}{index + 1:>3} {record.when} "
                     f"{record.command}{verdict}: {record.fingerprint.model}")  # fmt: skip
        lines += [f"       {change}" for change in changed]
        figures = (f"{name} {cell(record.figures, name)}" for name in FIGURES)
        lines.append(f"       {'; '.join(figures)}")
    return lines


def changed_at(records: list[Entry]) -> list[list[str]]:
    """What changed in the judge at each run, against the run before (nothing at the first)."""
    prints = [record.fingerprint for record in records]
    before = prints[:1] + prints[:-1]  # the first run is set against itself
    return [changes(old, new) for old, new in zip(before, prints, strict=True)]


def plots(records: list[Entry], folder: Path) -> list[Path]:
    """One PNG per figure over the runs, intervals drawn as error bars (stage 9's plotting,
    which loads matplotlib only when asked)."""
    import matplotlib.pyplot as plt  # after stage 9's plots, which choose files only (Agg)

    from stages.s09_calibration.plots import save

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in FIGURES:
        points = [(i + 1, value(r.figures, name), getattr(r.figures, name + "_ci", None))
                  for i, r in enumerate(records)]  # fmt: skip
        figure, axes = plt.subplots(figsize=(6, 3.5))
        for x, y, ci in [(x, y, ci) for x, y, ci in points if y is not None]:
            low, high = ci if ci else (y, y)
            axes.errorbar([x], [y], yerr=[[y - low], [high - y]], fmt="o", color="black")
        for x, changed in enumerate(changed_at(records), start=1):
            if changed:  # two instruments either side of this line
                axes.axvline(x - 0.5, linestyle="--", color="grey")
        axes.set(xlabel="run (oldest first; dashed: the judge changed)", ylabel=name)
        axes.set_title(f"{name} over time")
        axes.set_xticks([x for x, _, _ in points])
        written.append(save(figure, folder / f"history_{name}.png"))
    return written


def value(figures: Figures, name: str) -> float | None:
    """A figure as a number to plot; flips as the share of N that flipped."""
    if name == "flips":
        flips, of = figures.flips, figures.of
        return None if flips is None or not of else flips / of
    found = getattr(figures, name)
    return None if found is None else float(found)
