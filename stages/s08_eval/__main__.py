"""Stage 8: run every case through the agent, evaluate it on three levels, test the judge."""

from __future__ import annotations

import sys

from stages.s01_model.cli import ROOT, run_cli, short
from stages.s01_model.files import writable
from stages.s08_eval.cases import load_cases, run_case
from stages.s08_eval.commands import emit, parser, status
from stages.s08_eval.render import render
from stages.s08_eval.report import evaluation
from stages.s08_eval.specs import SPECS, resolve

REPORT_FILE = ROOT / "reports" / "s08_eval.json"


def main(argv: list[str] | None = None, prog: str = "python -m stages.s08_eval") -> int:
    args = parser(prog, SPECS, REPORT_FILE).parse_args(argv)
    out = writable(args.out, "--out")  # checked before the first case is run
    chosen, control = resolve(args.judge), resolve(args.control)
    runs = [run_case(case) for case in load_cases(args.cases)]
    report = evaluation(runs, chosen, control)
    emit(report.to_json(), render(report), args.json, out)
    print(f"report written to {short(out)}", file=sys.stderr)
    return status(report.not_successful)


if __name__ == "__main__":
    sys.exit(run_cli(main))
