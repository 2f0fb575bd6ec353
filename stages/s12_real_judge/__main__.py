"""Stage 12: the reports of stages 8 and 9, with a real instrument on the wire.

    python -m stages.s12_real_judge eval      [stage 8's options] [wire options]
    python -m stages.s12_real_judge calibrate [stage 9's report options] [wire options]
    python -m stages.s12_real_judge gate      [stage 9's gate options] [wire options]
    python -m stages.s12_real_judge pad       [--judge local|replay|openai:MODEL] [--out FILE]

Wire options: --judge-config FILE, --no-cache, --progress, --judge-timeout S, --record;
`--judge` also takes openai:MODEL, local and replay. Without a command, a demo: `eval`
against a chat-completions server that this command starts on 127.0.0.1, so the whole wire
runs with no network.

Each report command prints what its stage prints, with the same JSON keys, and exits as its
stage does; and 1 when a judge was found unavailable (its breaker opened). `pad` asks a model
for padded twins and checks each (padding.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path

from stages.s01_model.cli import ROOT, run_cli, short
from stages.s01_model.errors import CourseInputError
from stages.s08_eval import __main__ as s08
from stages.s08_eval.cases import load_cases, run_case
from stages.s08_eval.judge import Judge
from stages.s08_eval.report import evaluation, failures, writable
from stages.s08_eval.specs import JudgeChoice
from stages.s09_calibration.calibration import load_calibration
from stages.s09_calibration.commands import parse
from stages.s09_calibration.structured import Reply
from stages.s10_agreement import commands as calibration
from stages.s10_agreement.gate import load_gate
from stages.s10_agreement.people import AgreedRun
from stages.s10_agreement.report import Report
from stages.s11_correction.corrected_run import calibrate_and_correct
from stages.s11_correction.report import render
from stages.s12_real_judge.client import OpenAIJudge
from stages.s12_real_judge.judges import SPECS, add_options, chosen_by, keep, settle
from stages.s12_real_judge.padding import REVIEW_FILE, pad, review, summary
from stages.s12_real_judge.prefetch import ask_ahead

PROG = "python -m stages.s12_real_judge"
COMMANDS = ("eval", "calibrate", "gate", "pad")
DEMO_REPORT = ROOT / "reports" / "s12_real_judge.json"
CALIBRATION_REPORT = ROOT / "reports" / "s12_calibration.json"


def run_eval(argv: list[str]) -> int:
    """Stage 8's report: plan its questions, fetch them, then build it in order."""
    parser = s08.parser(f"{PROG} eval", SPECS)
    add_options(parser)
    args = parser.parse_args(argv)
    out = writable(args.out, "--out")  # checked before any call is made
    runs = [run_case(case) for case in load_cases(args.cases)]
    with ExitStack() as stack:  # a local judge's server, stopped however the run ends
        chosen, control = chosen_by(args, stack)
        report = ask_ahead(
            chosen.judge, lambda judge: evaluation(runs, replace(chosen, judge=judge), control)
        )
        report["judge"].update(settle(chosen))
        report["control"].update(settle(control))
        keep(args, chosen)
        report["not_successful"] = failures(report)
        return s08.emit(report, args, out)


def run_calibration(argv: list[str]) -> int:
    """Stage 11's report (`calibrate`) or stage 10's gate, with the questions fetched ahead."""
    parser = argparse.ArgumentParser(prog=PROG, description="Calibrate a judge against people.")
    sub = parser.add_subparsers(dest="command", required=True)
    commands = calibration.add_commands(sub, SPECS, CALIBRATION_REPORT, name="calibrate")
    for command in commands.values():
        add_options(command)
    args = parse(parser, commands, argv)
    with ExitStack() as stack:  # a local judge's server, stopped however the run ends
        if args.command == "gate":
            return run_gate(args, stack)
        files = calibration.outputs(args.out, args.plots)
        return run_report(args, files, stack)


def run_gate(args: argparse.Namespace, stack: ExitStack) -> int:
    limits = load_gate(args.config)  # read before any call is made
    _, run, down = measure_gate(args, stack)
    return calibration.emit_gate(run, limits, args.config, Reply(args.reply), down)


def measure_gate(
    args: argparse.Namespace, stack: ExitStack
) -> tuple[JudgeChoice, AgreedRun, str | None]:
    """The judge the gate measures, its run, and why it stopped being asked (None if not)."""
    chosen, _ = chosen_by(args, stack)
    reply = Reply(args.reply)
    run = ask_ahead(
        chosen.judge, lambda judge: calibration.measure_gate(replace(chosen, judge=judge), reply)
    )
    keep(args, chosen)
    return chosen, run, settle(chosen)["unavailable"]


def run_report(
    args: argparse.Namespace, files: tuple[Path, Path, Path | None], stack: ExitStack
) -> int:
    chosen, control = chosen_by(args, stack)
    reply = Reply(args.reply)

    def measure(judge: Judge) -> Report:
        asked = replace(chosen, judge=judge)
        return calibration.measure_report(
            asked, control, args.repeats, reply, calibrate=calibrate_and_correct
        )

    report = ask_ahead(chosen.judge, measure)
    keep(args, chosen)
    judge = replace(report.judge, **settle(chosen))
    control_side = replace(report.control, **settle(control))
    settled = replace(report, judge=judge, control=control_side)
    return calibration.emit_report(
        settled, render(settled), args.json, files, args.write_rubric_record
    )


def run_pad(argv: list[str]) -> int:
    """Padded twins from the judge's model, each held to stage 9's check; ten for review."""
    parser = argparse.ArgumentParser(prog=f"{PROG} pad", description=run_pad.__doc__)
    parser.add_argument("--judge", default="local", help="local (default), replay, openai:MODEL")
    parser.add_argument("--out", type=Path, default=REVIEW_FILE, help="the twins to review")
    add_options(parser)
    args = parser.parse_args(argv)
    out = writable(args.out, "--out")
    with ExitStack() as stack:
        chosen, _ = chosen_by(args, stack)
        if not isinstance(chosen.judge, OpenAIJudge):
            raise CourseInputError(
                f"pad --judge {args.judge}: needs a model (local, replay, openai:)"
            )
        padded = pad(chosen.judge, load_calibration())
        keep(args, chosen)
    print("\n".join(summary(padded)))
    print(f"{review(padded, out)} twins that passed written to {short(out)} for review")
    down = chosen.judge.down()
    if down is not None:
        print(f"error: the judge {down}", file=sys.stderr)
    return 0 if down is None else 1


def demo() -> int:
    """`eval` against the biased fake served on 127.0.0.1; its journal is temporary."""
    from fakes.chat_server import ChatServer, answering_as
    from fakes.judges import BiasedJudge

    served = ChatServer(default=answering_as(BiasedJudge()))
    with served as server, tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "judge.toml"
        config.write_text(f'journal = "{Path(folder) / "journal.sqlite"}"\n')
        os.environ["OPENAI_BASE_URL"] = server.url
        options = ["--judge-config", str(config), "--out", str(DEMO_REPORT)]
        return run_eval(["--judge", "openai:biased-on-loopback", *options])


def main() -> int:
    argv = sys.argv[1:]
    if not argv:
        return demo()
    if argv[0] not in COMMANDS:
        top = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
        top.add_argument("command", choices=COMMANDS, help="eval, calibrate, gate or pad")
        top.parse_args(argv[:1])  # prints the usage and exits 2, or the help and exits 0
    if argv[0] == "pad":
        return run_pad(argv[1:])
    return run_eval(argv[1:]) if argv[0] == "eval" else run_calibration(argv)


if __name__ == "__main__":
    sys.exit(run_cli(main))
