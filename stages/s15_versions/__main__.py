"""Stage 15: your agent changed. Two versions compared case by case, and a run's pass rate
once people's labels count.

    python -m stages.s15_versions compare [RUN_A RUN_B] [--labels FILE [FILE]] [--json]
    python -m stages.s15_versions correct [REPORT LABELS] [--id-col C] [--human-col C] [--json]
    python -m stages.s15_versions budget  [--judge SPEC | --rates TPR TNR] [--runs N] [--json]

Without a command, `compare` runs its demo: the agent's two versions, under the biased judge
and under the steady one, its mirrored half. `correct` without files shows the correction in
a simulated world where the truth is known. `budget` says how many labels the gate's two
rates need, and the smallest change two versions can show (budget.py).

Exit status: 0 when every comparison was evaluated and nothing changed that should not have;
1 when one was not evaluated, a checked level moved, or no corrected figure could be made; 2
for bad input (a file that cannot be read, a report that is not stage 8's, a label that
cannot be read). Each demo exits 0 when it tells the flawed judge from the steady one.
`budget` exits 1 when a rate is not above its bar (no number of labels certifies it) or could
not be measured.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

from stages.s01_model.cli import Parser, run_cli, short
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import dumps, load_json
from stages.s08_eval.findings import Finding
from stages.s08_eval.levels import PASS_MARK
from stages.s11_correction.correction import corrected, made
from stages.s11_correction.report import lesson_json, lesson_lines
from stages.s11_correction.simulation import lesson
from stages.s12_real_judge.commands import request_of
from stages.s15_versions.budget import add_budget, run_budget
from stages.s15_versions.corrected import LabelColumns, correct, read_labels, render, verdicts
from stages.s15_versions.corrected_change import DEMO_LABELS, compared
from stages.s15_versions.versions import demo_runs
from stages.s15_versions.versions import render as render_versions


def main(argv: list[str] | None = None, prog: str = "python -m stages.s15_versions") -> int:
    parser = Parser(
        prog=prog,
        description="Two versions of the agent, and the corrected number of a run.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    compare = commands.add_parser("compare", help="two versions of the agent, length held equal")
    compare.add_argument("runs", type=Path, nargs="*", help="two stage-8 JSON reports, A then B")
    compare.add_argument(
        "--labels", type=Path, nargs="+", metavar="FILE",
        help="people's labels (id, human): one file for both runs, or one for each",
    )  # fmt: skip
    compare.add_argument("--json", action="store_true", help="print one JSON object")
    add_correct(commands)
    add_budget(commands)
    # A mistyped option is reported by the command it was given to, with that command's usage.
    args, unknown = parser.parse_known_args(
        (sys.argv[1:] if argv is None else argv) or ["compare"]
    )  # none: the demo
    if unknown:
        commands.choices[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command == "budget":
        request = request_of(args)  # the wire options, read once
        return run_budget(request, args.rates, args.runs, args.config, args.plots, args.json)
    return run_compare(args) if args.command == "compare" else run_correct(args)


def run_compare(args: argparse.Namespace) -> int:
    """Two stage-8 reports compared case by case; with none, the two versions of the agent
    under the biased judge and the steady one, with the demo's labels. Exit 1 when a
    comparison is not evaluated, a checked level moved, or labels were given and neither
    corrected change could be made; or, in the demo, when the steady judge shows a change."""
    if args.runs and len(args.runs) != 2:
        raise CourseInputError(f"compare: give two stage-8 reports, not {len(args.runs)}")
    if args.labels and len(args.labels) > 2:
        raise CourseInputError(f"compare: --labels takes one file or two, not {len(args.labels)}")
    labels = args.labels or ([] if args.runs else [DEMO_LABELS])
    people = [read_labels(path, LabelColumns("id", "human"), PASS_MARK) for path in labels]
    if args.runs:
        runs = {f"{short(args.runs[0])} -> {short(args.runs[1])}": tuple(map(load_json, args.runs))}
    else:
        runs = {
            f"the two versions, {judge} judge": demo_runs(judge) for judge in ("biased", "steady")
        }
    found = {where: compared(where, a, b, people) for where, (a, b) in runs.items()}
    if args.json:
        print(dumps({label: c.to_json() for label, c in found.items()}, sort_keys=True))
    else:
        print("\n".join(line for label, c in found.items() for line in render_versions(label, c)))
    broken = [c for c in found.values() if c.state == Finding.NOT_EVALUATED or c.paths_changed]
    unmade = [c for c in found.values() if c.corrected is not None and not made(c.corrected)]
    mirror = not args.runs and found["the two versions, steady judge"].state == Finding.FOUND
    return 1 if broken or unmade or mirror else 0


def add_correct(commands: Any) -> None:
    found = commands.add_parser("correct", help="a run's pass rate, corrected by human labels")
    found.add_argument(
        "files",
        nargs="*",
        type=Path,
        metavar="REPORT LABELS",
        help="a stage-8 JSON report and a file of labels (none: a simulation)",
    )
    found.add_argument("--id-col", default="id", help="the labels' case id column")
    found.add_argument("--human-col", default="human", help="the labels' column")
    found.add_argument(
        "--gate", type=float, default=PASS_MARK, help="a score label at or above passes"
    )
    found.add_argument("--encoding", help="the labels file's text encoding (default UTF-8)")
    found.add_argument("--delimiter", help="the labels' CSV delimiter (default: sniffed)")
    found.add_argument("--json", action="store_true", help="print one JSON object")


def run_correct(args: argparse.Namespace) -> int:
    """Exit 0 when a correction was made; 1 when neither could be (or, in the simulation,
    when the judge alone is not told apart from the corrections)."""
    if not args.files:
        return simulated(args.json)
    if len(args.files) != 2:
        raise CourseInputError(
            f"correct: give a stage-8 report and a labels file, not {len(args.files)} files"
        )
    if not math.isfinite(args.gate):
        raise CourseInputError(f"--gate {args.gate!r}: expected a finite number")
    report, labels = args.files
    columns = LabelColumns(args.id_col, args.human_col)
    people = read_labels(
        labels, columns, args.gate, encoding=args.encoding, delimiter=args.delimiter
    )
    found = correct(verdicts(load_json(report), short(report)), people, short(labels))
    rate = corrected(found.rates, found.pass_rate)
    if args.json:
        means = None if found.mean_score is None else [vars(e) for e in found.mean_score]
        shown = {
            "cases": found.cases,
            "unscored": found.unscored,
            "pass_rate": rate,
            "mean_score": means,
        }
        print(dumps(shown, sort_keys=True))
    else:
        print("\n".join(render(found, f"{short(report)} with labels from {short(labels)}")))
    return 0 if made(found.pass_rate) else 1


def simulated(as_json: bool) -> int:
    """Stage 11's simulated world: exit 0 when the judge alone misses the truth and both
    corrections contain it."""
    shown = lesson()
    print(dumps(lesson_json(shown)) if as_json else "\n".join(lesson_lines(shown)))
    return 0 if shown.told else 1


if __name__ == "__main__":
    sys.exit(run_cli(main))
