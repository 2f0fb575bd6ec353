"""How many labels the gate needs, and the smallest change two agent versions can show.

    python -m stages.s15_versions budget [--judge SPEC | --rates TPR TNR] [--runs N]
                                         [--config FILE] [--plots DIR] [--json]

Labels. Wilson's lower bound clears the bar b exactly when the share seen reaches
b + z sqrt(b (1 - b) / n). A judge whose true rate is r shows r, give or take sqrt(r (1 - r)
/ n); by the normal approximation its bound clears b with probability `power` at
n = ((z sqrt(b (1 - b)) + z_power sqrt(r (1 - r))) / (r - b))^2 labels of that class (z 1.96
for 95%, z_power 0.84 for 80%): never, for a rate not above the bar. The labels in all are
that count over the class's share.

A change. Two versions, each run N times with the judge, n of those runs labelled by people,
each pass rate estimated by PPI++. With pass rate p, a person's pass Y and the judge's f have
var Y = p (1 - p), q = p tpr + (1 - p)(1 - tnr), var f = q (1 - q), cov = p tpr - p q; PPI++
at its best lambda has variance (var Y - cov^2 / ((1 + n / N) var f)) / n, a difference of
two versions twice that, and a two-sided 5% test finds, at 80% power, a change of
(z + z_power) times its square root.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from statistics import NormalDist
from typing import Any

from stages.s01_model.cli import short, whole
from stages.s01_model.files import dumps, folder, write_through
from stages.s09_calibration.calibration import load_calibration
from stages.s10_agreement.structured import Reply
from stages.s11_correction.certify import GATE_FILE, alike, labels, load_limits
from stages.s11_correction.estimates import wilson, z_value
from stages.s12_real_judge import commands
from stages.s12_real_judge.judges import JudgeRequest, add_options
from stages.s13_local_model.judges import SPECS, wire

POWER = 0.8  # the chance the bound clears the bar, or that a real change is found
LABELS = (25, 50, 100, 200, 400, 800)  # labels a version, for the table of changes
CURVE = tuple(round(10 ** (k / 20)) for k in range(20, 61))  # 10 to 1,000 labels, for the plot


def rate(text: str) -> float:
    """An argparse type: a share from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r}: a rate is a share from 0 to 1")
    return value


def labels_needed(true: float, bar: float, power: float = POWER) -> int | None:
    """Labels of one class that make Wilson's 95% lower bound clear `bar` with probability
    `power` when the rate is truly `true`; None when it does not exceed the bar (never)."""
    if true <= bar:
        return None
    spread = z_value() * math.sqrt(bar * (1 - bar))
    spread += NormalDist().inv_cdf(power) * math.sqrt(true * (1 - true))
    return math.ceil((spread / (true - bar)) ** 2)


def smallest_change(
    labelled: int, runs: int, rates: tuple[float, float], pass_rate: float, power: float = POWER
) -> float | None:
    """The smallest change in pass rate between two versions that PPI++ over `labelled` of
    `runs` scored runs each finds at `power`; None when the judge's verdicts never vary."""
    tpr, tnr = rates
    judged = pass_rate * tpr + (1 - pass_rate) * (1 - tnr)
    spread = judged * (1 - judged)
    if spread == 0 or labelled < 1:
        return None
    cov = pass_rate * tpr - pass_rate * judged
    unlabelled = max(1, runs - labelled)
    variance = pass_rate * (1 - pass_rate) - cov**2 / ((1 + labelled / unlabelled) * spread)
    error = math.sqrt(2 * max(0.0, variance) / labelled)
    return (z_value() + NormalDist().inv_cdf(power)) * error


def curve(true: float, counts: Sequence[int] = CURVE) -> list[float]:
    """Wilson's 95% lower bound at each count of labels when the share seen is the true rate:
    the curve the lesson plots."""
    return [round(wilson(round(true * n), n)[0], 4) for n in counts]


def draw(rates: dict[str, float], bars: dict[str, float], where: Path) -> Path:
    """The lesson's plot: labels of a class against each rate's typical lower bound, and its
    bar. The figures it is drawn from are written in the file, to be checked against a run."""
    import matplotlib  # loaded only when a plot is asked for

    matplotlib.use("Agg")  # files only: no display is needed or used
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 4))
    for name, value in rates.items():
        line = axes.plot(CURVE, curve(value), label=f"{name} rate {value:.2f}")[0]
        axes.axhline(bars[name], color=line.get_color(), linestyle=":", linewidth=1)
    axes.set(xscale="log", xlabel="labels of the class", ylabel="Wilson's 95% lower bound")
    axes.set_title("dotted: the bar each lower bound must clear", fontsize=9)
    axes.legend(loc="lower right")
    figure.tight_layout()
    path, drawn = where / "label_budget.png", json.dumps({"rates": rates, "bars": bars})
    meta = {"Software": None, "Description": drawn}
    write_through(path, lambda out: figure.savefig(out, format="png", dpi=80, metadata=meta))
    plt.close(figure)
    return path


def budget(rates: dict[str, float], bars: dict[str, float], share: float) -> dict[str, Any]:
    """For each rate: its bar, the labels of its class it needs, and the labels in all at
    this pass share (None: never); and the gate's labels, the larger (None if either is)."""
    found: dict[str, Any] = {}
    for name, value in rates.items():
        needed = labels_needed(value, bars[name])
        part = share if name == "true-positive" else 1 - share
        total = None if needed is None or part == 0 else math.ceil(needed / part)
        found[name] = {"rate": value, "bar": bars[name], "of_class": needed, "labels": total}
    totals = [entry["labels"] for entry in found.values()]
    return {"rates": found, "gate": None if None in totals else max(totals)}


def budget_lines(
    judge: str, shown: dict[str, Any], share: tuple[float, int], runs: int, changes: list[Any]
) -> list[str]:
    """The budget in words, then the smallest change at each count of labels. `share`: the
    people's pass share, and of how many labels."""
    lines = [
        f"label budget for {judge}: the labels that give each rate, if it is the true one, an "
        f"{POWER:.0%} chance that its 95% lower bound clears its bar; people pass "
        f"{share[0]:.2f} of answers (the {share[1]} labels)"
    ]
    for name, entry in shown["rates"].items():
        head = f"  {name} rate {entry['rate']:.2f}, bar {entry['bar']:.2f}: "
        if entry["labels"] is None:
            lines.append(head + "never: more labels do not lift a rate that is not above its bar")
            continue
        kind = "passed" if name == "true-positive" else "failed"
        lines.append(head + f"{entry['labels']} labels ({entry['of_class']} that people {kind})")
    gate = shown["gate"]
    lines.append(f"  both rates: {'never' if gate is None else f'{gate} labels'}")
    lines.append(f"smallest change in pass rate two agent versions can show ({POWER:.0%} power, "
                 f"5% two-sided), PPI++ over {runs} scored runs of each:")  # fmt: skip
    lines += [f"  {n} labels each: {'n/a' if c is None else f'{c:.2f}'}" for n, c in changes]
    return lines


def add_budget(sub: Any) -> Any:
    command = sub.add_parser("budget", help="the labels the gate needs, and the change they show")
    command.add_argument("--judge", default="steady", help=f"measured as the gate does: {SPECS}")
    add_options(command)  # a judge on the wire: stage 12's time limit, journal, settings
    assumed = "rates assumed instead of measured (no judge is asked)"
    command.add_argument("--rates", type=rate, nargs=2, metavar=("TPR", "TNR"), help=assumed)
    runs = whole(1, "a version is run at least once")
    command.add_argument("--runs", type=runs, default=1000, help="scored runs of each version")
    command.add_argument("--config", type=Path, default=GATE_FILE, help="the gate's bars (TOML)")
    command.add_argument("--plots", type=Path, help="write label_budget.png to this folder")
    command.add_argument("--json", action="store_true", help="print one JSON object")
    return command


def run_budget(request: JudgeRequest, assumed: list[float] | None, runs: int, config: Path,
               plots: Path | None, as_json: bool) -> int:  # fmt: skip
    """The labels the judge's rates (measured, or `assumed`) need to clear the gate's bars,
    and the smallest change in pass rate they show; 1 when they can never clear them."""
    limits, people = load_limits(config), [case.human_pass for case in load_calibration()]
    folder(plots, "--plots")
    name, share = "assumed" if assumed else request.spec, sum(people) / len(people)
    if assumed is None:
        with ExitStack() as stack:  # a local judge is served while it is asked
            _, run, down = commands.measure_gate(request, Reply.BARE, wire(stack))
        measured = measured_rates(labels(run), people)
        if isinstance(measured, str):
            why = measured + (f"; the judge is {down}" if down else "")
            print(f"error: the rates of {name} were not measured: {why}", file=sys.stderr)
            return 1
        assumed = measured
    rates = dict(zip(("true-positive", "true-negative"), assumed, strict=True))
    bars = dict(zip(rates, (limits.min_true_positive, limits.min_true_negative), strict=True))
    shown = budget(rates, bars, share)
    changes = [(n, smallest_change(n, runs, (assumed[0], assumed[1]), share)) for n in LABELS]
    result = {"judge": name, "pass_share": share, "runs": runs, **shown,
              "changes": [{"labels": n, "change": c} for n, c in changes]}  # fmt: skip
    said = budget_lines(name, shown, (share, len(people)), runs, changes)
    print(dumps(result) if as_json else "\n".join(said))
    if plots is not None:
        print(f"plot written to {short(draw(rates, bars, plots))}", file=sys.stderr)
    return 0 if shown["gate"] is not None else 1


def measured_rates(labelled: list[tuple[bool, bool]], people: list[bool]) -> list[float] | str:
    """The judge's true-positive and true-negative rates, or why they could not be read."""
    found = []
    for side in (True, False):
        if not (hits := alike(labelled, side)):
            kind = "passed" if side else "failed"
            return f"the judge scored none of the {people.count(side)} answers people {kind}"
        found.append(sum(hits) / len(hits))
    return found
