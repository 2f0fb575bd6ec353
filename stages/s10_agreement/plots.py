"""Stage 9's pictures of a calibration run, and the table behind kappa (matplotlib, PNG;
stage 9's module sets the backend that needs no screen).

confusion.png   judge against people at the pass mark: the counts kappa is made from
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from stages.s08_eval.levels import PASS_MARK
from stages.s09_calibration import plots
from stages.s09_calibration.calibrate import Run


def draw(run: Run, folder: Path, seed: int) -> list[Path]:
    """Stage 9's two plots of one run, and its kappa table; their paths."""
    return [*plots.draw(run, folder, seed), plots.save(kappa_table(run), folder / "confusion.png")]


def kappa_table(run: Run) -> Any:
    table = np.zeros((2, 2), dtype=int)
    for (_, score), person in zip(run.series.original, run.series.human_pass, strict=True):
        if score is not None:
            table[int(person), int(score >= PASS_MARK)] += 1
    figure, axes = plt.subplots(figsize=(4, 4))
    axes.imshow(table, cmap="Blues")
    for (row, column), count in np.ndenumerate(table):
        axes.text(column, row, str(count), ha="center", va="center")
    axes.set(xticks=[0, 1], yticks=[0, 1], title=f"{run.judge.name}: kappa table")
    axes.set_xticklabels(["judge fail", "judge pass"])
    axes.set_yticklabels(["human fail", "human pass"])
    return figure
