"""Stage 11: the corrected number. The full calibration report, with the set's pass rate four
ways, and the simulated world where the true rate is known.

    python -m stages.s11_correction report  [stage 10's report options]
    python -m stages.s11_correction gate    [stage 10's gate options]
    python -m stages.s11_correction correct [--json]

Without a command, `report` runs: stage 10's report, with the pass rate as the judge gives
it, as people give it, and corrected (Rogan-Gladen and PPI++) under each side's agreement.
`gate` is stage 10's, its rules read from people's labels certified on their intervals
(certify.py). `correct` draws the lesson's simulated world: four estimates against the truth.

Exit status: as stage 10's report and gate; for `correct`, 0 when the judge alone misses the
truth and both corrections contain it, 1 when they are not told apart; 2 for bad input.
"""

from __future__ import annotations

import sys

from stages.s01_model.cli import ROOT, Parser, run_cli
from stages.s01_model.files import dumps
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
from stages.s10_agreement.structured import Reply
from stages.s11_correction.certify import GATE_FILE, judge_gate, load_limits
from stages.s11_correction.corrected_run import calibrate_and_correct
from stages.s11_correction.report import lesson_json, lesson_lines, render
from stages.s11_correction.simulation import lesson

REPORT_FILE = ROOT / "reports" / "s11_correction.json"
PROG = "python -m stages.s11_correction"


def main(argv: list[str] | None = None, prog: str = PROG, name: str = "report") -> int:
    """The command; `name` is what its report goes by (the front door calls it calibrate)."""
    found = Parser(prog=prog, description="The corrected pass rate.")
    sub = found.add_subparsers(dest="command", required=True)
    commands = add_commands(sub, SPECS, REPORT_FILE, name, gate=GATE_FILE)
    correct = sub.add_parser("correct", help="the simulated world: four estimates, one truth")
    correct.add_argument("--json", action="store_true", help="print one JSON object")
    args = parse(found, {**commands, "correct": correct}, sys.argv[1:] if argv is None else argv)
    if args.command == "correct":
        return simulated(args.json)
    chosen, reply = resolve(args.judge), Reply(args.reply)
    if args.command == "gate":
        limits = load_limits(args.config)  # read before any call is made
        run = measure_gate(chosen, reply)
        return emit_gate(run, judge_gate(run, limits), args.config, reply, None, args.json)
    files = outputs(args.out, args.plots)
    report = measure_report(
        chosen, resolve("steady"), args.repeats, reply, calibrate=calibrate_and_correct
    )
    return emit_report(report, render(report), args.json, files, args.write_rubric_record)


def simulated(as_json: bool) -> int:
    """The lesson's simulated world: exit 0 when the judge alone misses the truth and both
    corrections contain it."""
    shown = lesson()
    print(dumps(lesson_json(shown)) if as_json else "\n".join(lesson_lines(shown)))
    return 0 if shown.told else 1


if __name__ == "__main__":
    sys.exit(run_cli(main))
