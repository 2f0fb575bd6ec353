"""Stage 17: the distribution of scores over time.

    python -m stages.s17_windows [FILE FILE ... | --history FILE] [--score-col C] [--last N]
                                 [--json]

Files of scores, one per window and oldest first (CSV or JSONL, read as stage 14 reads one),
or the runs of a calibration history (stage 16). Without either, the demo: an agent drifting
towards verbosity, week by week, before the biased judge and before the steady one, its
mirrored half.

Exit status: 0 when every figure was evaluated and nothing moved; 1 on a shift, a steady
rise, or a figure not evaluated; 2 for bad input. The demo exits 0 when it finds the biased
judge's rise and nothing under the steady judge. A long run shows its progress on stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from stages.s01_model.cli import Parser, run_cli, short
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import dumps
from stages.s06_resilience.guard import Progress
from stages.s08_eval.findings import Finding
from stages.s16_history import history
from stages.s17_windows.windows import LAST, Window, demo_windows, drift, read_window, render

FILES, PAIRS = "windows: files read", "windows: pairs tested"  # what progress lines count


def main(argv: list[str] | None = None, prog: str = "python -m stages.s17_windows") -> int:
    """How the scores moved from window to window; exit 1 on a shift, a steady rise, or a
    figure not evaluated. The demo exits 0 when it finds the biased judge's rise only."""
    parser = Parser(
        prog=prog,
        description="Scores over time: shifts, and a steady rise.",
    )
    parser.add_argument(
        "files", type=Path, nargs="*", help="a file of scores per window, oldest first"
    )
    parser.add_argument("--history", type=Path, help="the windows: a calibration history's runs")
    parser.add_argument("--score-col", default="score", help="the score's column (default: score)")
    parser.add_argument(
        "--last", type=int, default=LAST, help=f"steps a rise must span (default {LAST})"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    named = windows_of(args).items()
    drifts = {label: drift(windows, args.last, Progress(PAIRS)) for label, windows in named}
    if args.json:  # strict JSON: a NaN or an infinity left in a figure is refused, not written
        print(dumps({label: d.to_json() for label, d in drifts.items()}, sort_keys=True))
    else:
        for label, d in drifts.items():
            print(f"{label}: " + "\n".join(render(d)))
    if not (args.files or args.history):
        states = [d.rising.state for d in drifts.values()]
        return 0 if states == [Finding.FOUND, Finding.NOT_FOUND] else 1
    d = next(iter(drifts.values()))
    measures = [*d.shifts, d.rising, *([d.overall] if d.overall else [])]
    return 1 if any(m.state != Finding.NOT_FOUND for m in measures) else 0


def windows_of(args: argparse.Namespace) -> dict[str, list[Window]]:
    """The windows named: files, a history's runs, or (neither) the demo's weeks, before
    the biased judge and the steady one, its mirrored half."""
    if args.last < 1:
        raise CourseInputError(f"windows: --last must be 1 or more, not {args.last}")
    if (args.files and args.history) or len(args.files) == 1:
        named = f"{len(args.files)} file(s)" + (" and --history" if args.history else "")
        raise CourseInputError(
            "windows: name two files or more, or --history FILE, or neither (the demo); "
            f"got {named}"
        )
    if args.history:
        if not args.history.is_file():
            raise CourseInputError(f"--history {args.history}: no such file")
        runs = enumerate(history.load(args.history), start=1)
        return {short(args.history): [
            Window(f"run {i} ({r.when})", r.figures.scores, 0) for i, r in runs
        ]}  # fmt: skip
    if args.files:
        files = Progress(FILES).each(args.files)
        return {"your windows": [read_window(path, args.score_col) for path in files]}
    return {f"the {judge} judge": demo_windows(judge) for judge in ("biased", "steady")}


if __name__ == "__main__":
    sys.exit(run_cli(main))
