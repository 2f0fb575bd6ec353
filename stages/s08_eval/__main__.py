"""Stage 8: run every case through the agent, evaluate it on three levels, test the judge.

    python -m stages.s08_eval [--judge SPEC] [--control SPEC] [--json] [--out FILE] [--cases FILE]

Exit status: 0 for a report; 1 when the run is not successful (report.failures says why);
2 for bad input (an unknown SPEC, a broken case file, a report that cannot be written).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from stages.s01_model.cli import ROOT, run_cli, short
from stages.s08_eval.cases import CASES_FILE, load_cases, run_case
from stages.s08_eval.render import render
from stages.s08_eval.report import evaluation, first_reason, writable, write
from stages.s08_eval.specs import resolve

REPORT_FILE = ROOT / "reports" / "s08_eval.json"
SPECS = "biased (default), steady, module.path:attribute"


def parser(prog: str = "python -m stages.s08_eval", specs: str = SPECS) -> argparse.ArgumentParser:
    """The command's options; `specs` is the help text of --judge."""
    found = argparse.ArgumentParser(prog=prog, description="Evaluate the agent; test the judge.")
    found.add_argument("--judge", default="biased", help=specs)
    found.add_argument(
        "--control", default="steady", help="the judge the detectors must find clean (steady)"
    )
    found.add_argument("--json", action="store_true", help="print the report as one JSON object")
    found.add_argument("--out", type=Path, default=REPORT_FILE, help="where to write the report")
    found.add_argument("--cases", type=Path, default=CASES_FILE, help="the case file")
    return found


def emit(report: dict[str, Any], args: argparse.Namespace, out: Path) -> int:
    """Print the report, write it to `out`; 1 when the run is not successful."""
    print(json.dumps(report, sort_keys=True) if args.json else render(report))
    write(report, out)
    print(f"report written to {short(out)}", file=sys.stderr)
    if report["not_successful"]:
        reason = first_reason(report["not_successful"])
        print(f"error: run is not successful: {reason}", file=sys.stderr)
        return 1
    return 0


def main() -> int:
    args = parser().parse_args()
    out = writable(args.out, "--out")  # checked before the first case is run
    chosen, control = resolve(args.judge), resolve(args.control)
    runs = [run_case(case) for case in load_cases(args.cases)]
    return emit(evaluation(runs, chosen, control), args, out)


if __name__ == "__main__":
    sys.exit(run_cli(main))
