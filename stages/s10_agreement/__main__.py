"""Stage 10: does the judge agree with people? Kappa, its review queue, the length confound,
the rubric change, and the gate that combines them.

    python -m stages.s10_agreement report [--judge SPEC] [--json] [--plots DIR] [--repeats N]
    python -m stages.s10_agreement gate   [--judge SPEC] [--config FILE] [--reply bare|json]

Without a command, `report` runs: stage 9's report with the measures people's labels make
possible. The disagreements with the human labels are written to a review queue (JSONL)
next to the report.

Exit status: 0 for a report whose every measure was evaluated; 1 when one was not (too little
usable data), and for `gate`, when a rule fails; 2 for bad input (an unknown SPEC, a repeat
count below 1, a file that cannot be read or written).
"""

from __future__ import annotations

import sys

from stages.s01_model.cli import ROOT, Parser, run_cli
from stages.s08_eval.specs import SPECS, resolve
from stages.s09_calibration.commands import parse
from stages.s10_agreement.commands import (
    add_commands,
    emit_gate,
    emit_report,
    measure_gate,
    measure_report,
    outputs,
)
from stages.s10_agreement.gate import judge_gate, load_gate
from stages.s10_agreement.report import render
from stages.s10_agreement.structured import Reply

REPORT_FILE = ROOT / "reports" / "s10_agreement.json"
PROG = "python -m stages.s10_agreement"


def main(argv: list[str] | None = None, prog: str = PROG, name: str = "report") -> int:
    """The command; `name` is what its report goes by (the front door calls it calibrate)."""
    found = Parser(prog=prog, description="Calibrate a judge against people.")
    commands = add_commands(
        found.add_subparsers(dest="command", required=True), SPECS, REPORT_FILE, name
    )
    args = parse(found, commands, sys.argv[1:] if argv is None else argv)
    chosen, reply = resolve(args.judge), Reply(args.reply)
    if args.command == "gate":
        limits = load_gate(args.config)  # read before any call is made
        run = measure_gate(chosen, reply)
        rules = judge_gate(run.verbosity, run.calibration, limits)
        return emit_gate(run, rules, args.config, reply, None, args.json)
    files = outputs(args.out, args.plots)
    report = measure_report(chosen, resolve("steady"), args.repeats, reply)
    return emit_report(report, render(report), args.json, files, args.write_rubric_record)


if __name__ == "__main__":
    sys.exit(run_cli(main))
