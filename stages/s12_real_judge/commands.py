"""The commands on the wire: stage 8's report (`eval`), stage 11's report (`calibrate`) and
stage 11's gate, each with its questions fetched ahead and its judge reached through a `Wire`
(a later stage's brings judges of its own)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from functools import partial

from stages.s01_model.cli import ROOT, Parser, short
from stages.s01_model.files import writable
from stages.s08_eval import commands as evaluation_command
from stages.s08_eval.cases import load_cases, run_case
from stages.s08_eval.render import render as render_evaluation
from stages.s08_eval.report import evaluation
from stages.s08_eval.specs import JudgeChoice
from stages.s09_calibration.commands import parse
from stages.s10_agreement import commands as calibration
from stages.s10_agreement.people import AgreedRun
from stages.s10_agreement.structured import Reply
from stages.s11_correction.certify import GATE_FILE, judge_gate, load_limits
from stages.s11_correction.corrected_run import calibrate_and_correct
from stages.s11_correction.report import render
from stages.s12_real_judge.judges import WIRE, JudgeRequest, Wire, control_of, settle
from stages.s12_real_judge.prefetch import ask_ahead

EVAL_REPORT = ROOT / "reports" / "s12_eval.json"
CALIBRATION_REPORT = ROOT / "reports" / "s12_calibration.json"


def request_of(args: argparse.Namespace) -> JudgeRequest:
    """The wire options, read once: no judge sees the parsed arguments."""
    return JudgeRequest(
        args.judge,
        args.judge_config,
        use_journal=not args.no_cache,
        progress=True if args.progress else None,
        timeout_s=args.judge_timeout,
        record=getattr(args, "record", False),  # an option a later stage's wire adds
    )


def run_eval(argv: list[str], prog: str, wire: Wire = WIRE) -> int:
    """Stage 8's report: plan its questions, fetch them, then build it in order."""
    parser = evaluation_command.parser(f"{prog} eval", wire.specs, EVAL_REPORT)
    wire.options(parser)
    args = parser.parse_args(argv)
    request = request_of(args)
    out = writable(args.out, "--out")  # checked before any call is made
    runs = [run_case(case) for case in load_cases(args.cases)]
    chosen, control = wire.choose(request), control_of(request, args.control)
    report = ask_ahead(chosen, lambda asked: evaluation(runs, asked, control))
    judged = replace(report.judge, **settle(chosen))  # why it stopped, what it says of itself
    settled = replace(report, judge=judged, control=replace(report.control, **settle(control)))
    wire.keep(request, chosen)
    evaluation_command.emit(settled.to_json(), render_evaluation(settled), args.json, out)
    print(f"report written to {short(out)}", file=sys.stderr)
    return evaluation_command.status(settled.not_successful)


def run_calibration(argv: list[str], prog: str, wire: Wire = WIRE) -> int:
    """Stage 11's report (`calibrate`) or its gate, with the questions fetched ahead."""
    parser = Parser(prog=prog, description="Calibrate a judge against people.")
    sub = parser.add_subparsers(dest="command", required=True)
    commands = calibration.add_commands(sub, wire.specs, CALIBRATION_REPORT, "calibrate", GATE_FILE)
    for command in commands.values():
        wire.options(command)
    args = parse(parser, commands, argv)
    request, reply = request_of(args), Reply(args.reply)
    if args.command == "gate":
        limits = load_limits(args.config)  # read before any call is made
        _, run, down = measure_gate(request, reply, wire)
        rules = judge_gate(run, limits)
        return calibration.emit_gate(run, rules, args.config, reply, down, args.json)
    files = calibration.outputs(args.out, args.plots)
    chosen, control = wire.choose(request), control_of(request)
    measure = partial(calibration.measure_report, calibrate=calibrate_and_correct)
    report = ask_ahead(chosen, lambda asked: measure(asked, control, args.repeats, reply))
    wire.keep(request, chosen)
    judged = replace(report.judge, **settle(chosen))
    settled = replace(report, judge=judged, control=replace(report.control, **settle(control)))
    as_json, rubric_record = args.json, args.write_rubric_record
    return calibration.emit_report(settled, render(settled), as_json, files, rubric_record)


def measure_gate(
    request: JudgeRequest, reply: Reply, wire: Wire = WIRE
) -> tuple[JudgeChoice, AgreedRun, str | None]:
    """The judge the gate measures, its run, and why it stopped being asked (None if not)."""
    chosen = wire.choose(request)
    run = ask_ahead(chosen, lambda asked: calibration.measure_gate(asked, reply))
    wire.keep(request, chosen)
    return chosen, run, settle(chosen)["unavailable"]
