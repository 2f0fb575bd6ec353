"""Stage 9: calibrate a judge before trusting it.

    python -m stages.s09_calibration report [--judge SPEC] [--json] [--plots DIR] [--repeats N]
    python -m stages.s09_calibration gate [--judge SPEC] [--config FILE]

Without a command, `report` runs. The judge (default: the biased fake) and the steady
control are measured side by side on the calibration set and its twins. The disagreements
with the human labels are written to a review queue (JSONL) next to the report.

Exit status: 0 for a report whose every measure was evaluated; 1 when one was not (too little
usable data), and for `gate`, when a rule fails; 2 for bad input (an unknown SPEC, a repeat
count below 1, a file that cannot be read or written).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from stages.s01_model.cli import ROOT, run_cli, short
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.judge import CountingJudge
from stages.s08_eval.report import first_reason, writable, write_text
from stages.s08_eval.specs import JudgeChoice, resolve
from stages.s09_calibration.calibrate import REPEATS, SEED, Run, calibrate, rubric_change
from stages.s09_calibration.calibration import load_calibration
from stages.s09_calibration.gate import GATE_FILE, Thresholds, judge_gate, load_gate
from stages.s09_calibration.report import Report, Side, render, to_json, unscored_line
from stages.s09_calibration.rubrics import Rubric
from stages.s09_calibration.structured import Reply
from stages.s09_calibration.twins import load_twins

REPORT_FILE = ROOT / "reports" / "s09_calibration.json"
RUBRIC_RECORD = Path(__file__).resolve().parent / "rubric_change.json"
SPECS = "biased (default), steady, module.path:attribute"
REPLIES = [str(reply) for reply in Reply]


def at_least_one(text: str) -> int:
    """An argparse type: a count of scorings, 1 or more (0 scorings measure nothing)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: each text must be scored at least once")
    return value


def parser(
    prog: str = "python -m stages.s09_calibration", specs: str = SPECS, name: str = "report"
) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The commands and their options; a later stage adds judges on the wire, and may call
    the report command by another `name`."""
    found = argparse.ArgumentParser(prog=prog, description="Calibrate a judge against people.")
    commands = found.add_subparsers(dest="command", required=True)
    report = commands.add_parser(name, help="the full calibration report")
    report.add_argument("--judge", default="biased", help=specs)
    report.add_argument("--json", action="store_true", help="print one JSON object")
    report.add_argument("--repeats", type=at_least_one, default=REPEATS, help="scorings per text")
    report.add_argument("--out", type=Path, default=REPORT_FILE, help="where to write it")
    report.add_argument("--reply", choices=REPLIES, default="bare", help="reply form")
    report.add_argument("--plots", type=Path, help="write PNG plots to this folder")
    record = f"also write the rubric change to {RUBRIC_RECORD.name} (the lesson quotes it)"
    report.add_argument("--write-rubric-record", action="store_true", help=record)
    gate = commands.add_parser("gate", help="exit 1 unless the judge passes every rule")
    gate.add_argument("--judge", default="biased", help=specs)
    gate.add_argument("--config", type=Path, default=GATE_FILE, help="thresholds (TOML)")
    gate.add_argument("--reply", choices=REPLIES, default="bare", help="reply form")
    return found, {name: report, "gate": gate}


def parse(
    found: argparse.ArgumentParser, commands: dict[str, argparse.ArgumentParser], argv: list[str]
) -> argparse.Namespace:
    """The arguments; no command means the report. A mistyped option is reported by the
    command it was given to, with that command's usage."""
    args, unknown = found.parse_known_args(argv or [next(iter(commands))])
    if unknown:
        commands[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    return args


def main() -> int:
    args = parse(*parser(), sys.argv[1:])
    chosen = resolve(args.judge)
    if args.command == "gate":
        limits = load_gate(args.config)  # read before any call is made
        return emit_gate(args, limits, measure_gate(chosen, args.reply))
    out, queue = outputs(args)
    report = measure_report(chosen, resolve("steady"), args.repeats, args.reply)
    return emit_report(report, args, out, queue)


def outputs(args: argparse.Namespace) -> tuple[Path, Path]:
    """The report's file and its review queue, checked before a single call is made."""
    out = writable(args.out, "--out")
    if args.plots is not None and args.plots.exists() and not args.plots.is_dir():
        raise CourseInputError(f"--plots {args.plots}: is a file; name a folder for the plots")
    return out, writable(out.with_suffix(".review.jsonl"), "--out")


def measure_report(chosen: JudgeChoice, control: JudgeChoice, repeats: int, reply: str) -> Report:
    """Measure the judge and the control, and the judge again under the checklist rubric."""
    cases = load_calibration()
    twins = load_twins(cases)

    def run(choice: JudgeChoice, form: str, rubric: Rubric = Rubric.OPEN) -> Run:
        judge = CountingJudge(choice.judge, choice.name)
        return calibrate(judge, cases, twins, repeats=repeats, reply=Reply(form), rubric=rubric)

    judged, steady = run(chosen, reply), run(control, Reply.BARE)  # the steady fake replies bare
    checklist = run(chosen, reply, Rubric.FACTS)
    return Report(
        Side(judged, Reply(reply), judged.judge.calls + checklist.judge.calls),
        Side(steady, Reply.BARE, steady.judge.calls),
        rubric_change(judged, checklist),
        simulated=chosen.fake,
    )


def emit_report(report: Report, args: argparse.Namespace, out: Path, queue: Path) -> int:
    """Print the report, write it, its queue and its plots; 1 when it is not successful."""
    result = to_json(report)
    print(json.dumps(result, sort_keys=True) if args.json else render(report))
    if args.write_rubric_record:
        write_text(RUBRIC_RECORD, json.dumps(result["rubric_change"], indent=2) + "\n")
    write_text(out, json.dumps(result, indent=2, sort_keys=True) + "\n")
    write_text(queue, "".join(json.dumps(row) + "\n" for row in result["calibration"]["queue"]))
    if args.plots:
        from stages.s09_calibration.plots import draw  # matplotlib loads only when asked

        for path in draw(report.judge.run, args.plots, SEED):
            print(f"plot written to {short(path)}", file=sys.stderr)
    print(f"report written to {short(out)}; review queue in {short(queue)}", file=sys.stderr)
    if report.not_successful:
        reason = first_reason(report.not_successful)
        print(f"error: run is not successful: {reason}", file=sys.stderr)
        return 1
    return 0


def measure_gate(chosen: JudgeChoice, reply: str) -> Run:
    """The judge measured for the gate."""
    cases = load_calibration()
    judge = CountingJudge(chosen.judge, chosen.name)
    return calibrate(judge, cases, load_twins(cases), reply=Reply(reply))


def emit_gate(
    args: argparse.Namespace, limits: Thresholds, run: Run, down: str | None = None
) -> int:
    """Check every rule and print each; 1 when any fails. `down`: why the judge stopped
    being asked, when it did."""
    rules = judge_gate(run.verbosity, run.calibration, limits)
    print(f"calibration gate for {run.judge.name} ({short(args.config)}):")
    print(f"  {run.judge.calls} calls, {unscored_line(run.unscored, Reply(args.reply))}")
    if down is not None:
        print(f"  the judge is {down}")
    for rule in rules:
        print(f"  {'pass' if rule.passed else 'FAIL'}  {rule.name}: {rule.value} — {rule.limit}")
    failed = sum(not rule.passed for rule in rules)
    print(f"{'FAILED' if failed else 'passed'}: {len(rules) - failed} of {len(rules)} rules")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
