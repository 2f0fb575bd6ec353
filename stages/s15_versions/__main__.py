"""Stage 15: your agent changed. Two versions compared case by case, and a run's pass rate
once people's labels count.

    python -m stages.s15_versions compare [RUN_A RUN_B] [--labels FILE [FILE]] [--json]
    python -m stages.s15_versions correct [REPORT LABELS] [--id-col C] [--human-col C] [--json]

Without a command, `compare` runs its demo: the agent's two versions, under the biased judge
and under the steady one, its mirrored half. `correct` without files shows the correction in
a simulated world where the truth is known.

Exit status: 0 when every comparison was evaluated and nothing changed that should not have;
1 when one was not evaluated, a checked level moved, or no corrected figure could be made; 2
for bad input (a file that cannot be read, a report that is not stage 8's, a label that
cannot be read). Each demo exits 0 when it tells the flawed judge from the steady one.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from stages.s01_model.cli import run_cli
from stages.s15_versions.corrected import add_correct, run_correct
from stages.s15_versions.corrected_change import run_compare


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m stages.s15_versions",
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
    # A mistyped option is reported by the command it was given to, with that command's usage.
    args, unknown = parser.parse_known_args(sys.argv[1:] or ["compare"])  # none: the demo
    if unknown:
        commands.choices[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    return run_compare(args) if args.command == "compare" else run_correct(args)


if __name__ == "__main__":
    sys.exit(run_cli(main))
