"""Three pictures of a calibration run, as PNG files (matplotlib, no screen needed).

score_vs_length.png   originals and padded twins: does the score climb with length?
bootstrap.png         the bootstrap distribution of the mean delta, its interval, zero
confusion.png         judge against people at the gate: the table behind kappa
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only: no display is needed or used

import matplotlib.pyplot as plt
import numpy as np

from stages.s09_calibration.calibration import GATE
from stages.s09_calibration.stats import RESAMPLES, bootstrap_means


def draw(result: dict[str, Any], folder: Path, seed: int) -> list[Path]:
    """Write the three plots for the judge's measurements; return their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    series, name = result["series"], result["judge"]["name"]
    written = []

    figure, axes = plt.subplots(figsize=(6, 4))
    for kind, marker in (("original", "o"), ("padded", "^")):
        points = [(x, y) for x, y in series[kind] if y is not None]
        axes.scatter([p[0] for p in points], [p[1] for p in points], marker=marker, label=kind)
    axes.set(
        xlabel="answer length (characters)", ylabel="mean score", title=f"{name}: score by length"
    )
    axes.legend()
    written.append(_save(figure, folder / "score_vs_length.png"))

    deltas = [
        padded - original
        for (_, original), (_, padded) in zip(series["original"], series["padded"], strict=True)
        if original is not None and padded is not None
    ]
    figure, axes = plt.subplots(figsize=(6, 4))
    if deltas:
        means = bootstrap_means(np.asarray(deltas), np.random.default_rng(seed), RESAMPLES)
        axes.hist(means, bins=40)
        for edge in result["verbosity"]["ci"] or []:
            axes.axvline(edge, linestyle="--", color="black")
    axes.axvline(0, color="red")
    axes.set(xlabel="mean delta, padded minus original", ylabel="resamples",
             title=f"{name}: bootstrap of the mean delta")  # fmt: skip
    written.append(_save(figure, folder / "bootstrap.png"))

    table = np.zeros((2, 2), dtype=int)
    for (_, score), person in zip(series["original"], series["human_pass"], strict=True):
        if score is not None:
            table[int(person), int(score >= GATE)] += 1
    figure, axes = plt.subplots(figsize=(4, 4))
    axes.imshow(table, cmap="Blues")
    for (row, column), count in np.ndenumerate(table):
        axes.text(column, row, str(count), ha="center", va="center")
    axes.set(xticks=[0, 1], yticks=[0, 1], xticklabels=["judge fail", "judge pass"],
             yticklabels=["human fail", "human pass"], title=f"{name}: kappa table")  # fmt: skip
    written.append(_save(figure, folder / "confusion.png"))
    return written


def _save(figure: Any, path: Path) -> Path:
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)
    return path
