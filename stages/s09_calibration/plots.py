"""Two pictures of a judge's calibration run, as PNG files (matplotlib, no screen needed).

score_vs_length.png   originals and padded twins: does the score climb with length?
bootstrap.png         the bootstrap distribution of the mean delta, its interval, zero
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only: no display is needed or used

import matplotlib.pyplot as plt

from stages.s01_model.files import write_through
from stages.s09_calibration.calibrate import Run
from stages.s09_calibration.stats import RESAMPLES, bootstrap_means


def draw(run: Run, folder: Path, seed: int) -> list[Path]:
    """Write the two plots of one run into `folder`; return their paths."""
    drawn = [(by_length(run), "score_vs_length.png"), (bootstrap(run, seed), "bootstrap.png")]
    return [save(figure, folder / name) for figure, name in drawn]


def by_length(run: Run) -> Any:
    figure, axes = plt.subplots(figsize=(6, 4))
    for kind, marker in (("original", "o"), ("padded", "^")):
        scored = [(x, y) for x, y in getattr(run.series, kind) if y is not None]
        axes.scatter([x for x, _ in scored], [y for _, y in scored], marker=marker, label=kind)
    axes.set(xlabel="answer length (characters)", ylabel="mean score")
    axes.set_title(f"{run.judge.name}: score by length")
    axes.legend()
    return figure


def bootstrap(run: Run, seed: int) -> Any:
    pairs = zip(run.series.original, run.series.padded, strict=True)
    deltas = [p - o for (_, o), (_, p) in pairs if o is not None and p is not None]
    figure, axes = plt.subplots(figsize=(6, 4))
    if deltas:
        axes.hist(bootstrap_means(deltas, seed, RESAMPLES), 40)
        for edge in run.verbosity.ci or ():
            axes.axvline(edge, linestyle="--", color="black")
    axes.axvline(0, color="red")
    axes.set(xlabel="mean delta, padded minus original", ylabel="resamples")
    axes.set_title(f"{run.judge.name}: bootstrap of the mean delta")
    return figure


def save(figure: Any, path: Path) -> Path:
    figure.tight_layout()
    write_through(path, lambda out: figure.savefig(out, format="png", dpi=80))
    plt.close(figure)
    return path
