"""Stage 16: your judge changed. Its calibrations and gates kept in a history (history.py),
and its canaries asked again.

    python -m stages.s16_history calibrate --history FILE [--judge SPEC] [--reply R] [wire options]
    python -m stages.s16_history gate      --history FILE [--judge SPEC] [--config F] [--canaries]
                                           [wire options]
    python -m stages.s16_history history   FILE [--plots DIR] [--json]
    python -m stages.s16_history canary    [--judge SPEC] [--record] [--threshold N] [--json]

`calibrate` measures the judge as the gate does and appends the record, unless its kappa or
verbosity could not be measured (a baseline of nothing): then it exits 1. `gate` checks stage
11's rules, then the history's (staleness.py), with --canaries the canaries too (canary.py);
it appends its record either way, and exits 1 when any rule fails. Replies paid for stay in
stage 12's journal. `canary` asks a judge its canaries, and exits 1 when more replies changed
than allowed or they could not be checked. Without a command, the canaries' demo: the steady
judge (unchanged) and a judge its provider updated (changed), exit 0 when told apart.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

from stages.s01_model.cli import Parser, run_cli, short, whole
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import dumps, folder, writable
from stages.s08_eval.findings import Finding
from stages.s08_eval.specs import JudgeChoice
from stages.s09_calibration.measures import plain
from stages.s10_agreement.commands import REPLIES, emit_gate, gate_json
from stages.s10_agreement.gate import Rule
from stages.s10_agreement.structured import Reply
from stages.s11_correction.certify import GATE_FILE, judge_gate, load_limits
from stages.s12_real_judge import commands
from stages.s12_real_judge.judges import TIME_LIMIT, positive, settle
from stages.s13_local_model.judges import SPECS, add_options, wire
from stages.s16_history import history
from stages.s16_history.canary import (
    THRESHOLD,
    asked_anew,
    check,
    instrument,
    must_be_recorded,
    record,
    recorded,
    replies,
    unfinished,
)
from stages.s16_history.history_report import plots, table
from stages.s16_history.records import Command
from stages.s16_history.staleness import history_rules

NEEDED = ("kappa_ci", "verbosity_ci", "flips")  # a calibration without these is not recorded
CHANGES = whole(0, "a number of changes is 0 or more")  # what --threshold takes


def main(argv: list[str] | None = None, prog: str = "python -m stages.s16_history") -> int:
    parser = Parser(prog=prog, description="A judge's calibrations over time, and its canaries.")
    commands = parser.add_subparsers(dest="command", required=True)
    add_commands(commands)
    add_canary(commands)
    # A mistyped option is reported by the command it was given to, with that command's usage.
    args, unknown = parser.parse_known_args(
        (sys.argv[1:] if argv is None else argv) or ["canary"]
    )  # none: the demo
    if unknown:
        commands.choices[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    run = {"calibrate": run_calibrate, "gate": run_gate, "history": run_history}
    return (run | {"canary": run_canary})[args.command](args)


def add_commands(commands: Any) -> None:
    """calibrate, gate and history: the history's commands."""
    for name, about in (("calibrate", "measure the judge, add it to the history"),
                        ("gate", "stage 11's gate, then the history's rules")):  # fmt: skip
        command = commands.add_parser(name, help=about)
        command.add_argument("--history", type=Path, required=True, help="the history (JSONL)")
        command.add_argument("--judge", default="biased", help=SPECS)
        command.add_argument("--reply", choices=REPLIES, default="bare", help="reply form")
        add_options(command)
    gate = commands.choices["gate"]
    gate.add_argument("--config", type=Path, default=GATE_FILE, help="thresholds (TOML)")
    gate.add_argument("--canaries", action="store_true", help="ask the judge's canaries too")
    gate.add_argument("--json", action="store_true", help="print one JSON object")
    shown = commands.add_parser("history", help="the history as a table, and plots")
    shown.add_argument("file", type=Path, help="a history written by calibrate or gate")
    shown.add_argument("--plots", type=Path, help="write a PNG per figure to this folder")
    shown.add_argument("--json", action="store_true", help="print the records as JSON")


def run_calibrate(args: argparse.Namespace) -> int:
    records = history.load(args.history)  # read before any call is made
    writable(args.history, "--history")
    request, reply = commands.request_of(args), Reply(args.reply)
    with ExitStack() as stack:
        chosen, run, down = commands.measure_gate(request, reply, wire(stack))
    made = history.entry(Command.CALIBRATE, chosen, args.reply, run)
    new = history.with_threshold(made, records)
    print("\n".join(table([new])[1:]))
    missing = [name for name in NEEDED if getattr(new.figures, name) is None]
    if down is not None or missing:
        why = f"the judge is {down}" if down else f"{', '.join(missing)} not evaluated"
        print(f"error: not recorded: {why}; calibrate again", file=sys.stderr)
        return 1
    history.append(args.history, new)
    print(f"calibration {len(records) + 1} recorded in {short(args.history)}")
    return 0


def run_gate(args: argparse.Namespace) -> int:
    limits, records = load_limits(args.config), history.load(args.history)
    writable(args.history, "--history")
    request, reply = commands.request_of(args), Reply(args.reply)
    with ExitStack() as stack:  # a local judge's server stays up for its canaries
        chosen, run, down = commands.measure_gate(request, reply, wire(stack))
        gated = judge_gate(run, limits)  # stage 11's rules
        now = history.entry(Command.GATE, chosen, args.reply, run)
        rules = history_rules(records, now, limits)
        if args.canaries:  # asked of the judge anew: neither its journal nor this run's counts
            fresh = asked_anew(args.judge, args.judge_config, args.judge_timeout, stack)
            rules.append(canaries(fresh))
    passed = all(rule.passed for rule in gated + rules)
    if args.json:
        against = {"file": short(args.history), "runs": len(records), "rules": plain(rules)}
        shown = {**gate_json(run, gated, args.config, down), "passed": passed}
        print(dumps({**shown, "history": against}))
    else:
        emit_gate(run, gated, args.config, reply, down, False)
        print_rules(args.history, len(records), rules)
    history.append(args.history, replace(now, passed=passed))
    return 0 if passed else 1


def print_rules(path: Path, runs: int, rules: list[Rule]) -> None:
    """The history's rules, as the gate prints them after stage 11's."""
    print(f"against the history {short(path)} ({runs} run{'s' * (runs != 1)}):")
    for rule in rules:
        limit = f" — {rule.limit}" if rule.limit else ""
        print(f"  {'pass' if rule.passed else 'FAIL'}  {rule.name}: {rule.value}{limit}")
    failed = sum(not rule.passed for rule in rules)
    print(f"{'FAILED' if failed else 'passed'}: {len(rules) - failed} of {len(rules)} rules")


def canaries(chosen: JudgeChoice) -> Rule:
    """The judge's canaries asked again: changed replies fail, as does nothing recorded."""
    name = instrument(chosen.judge, chosen.name)
    if not recorded(name):
        why = f"not evaluated (no canaries recorded for {name}: canary --judge SPEC --record)"
        return Rule("canaries", why, "", False)
    found = check(name, replies(chosen.judge))
    value = found.verdict or f"not evaluated ({found.outcome.reason})"
    return Rule(
        "canaries", value, f"at most {found.threshold} changed", found.state == Finding.NOT_FOUND
    )


def run_history(args: argparse.Namespace) -> int:
    if not args.file.is_file():
        raise CourseInputError(f"history {args.file}: no such file (calibrate --history makes it)")
    folder(args.plots, "--plots")  # checked before the history is read
    records = history.load(args.file)
    shown = dumps([r.to_json() for r in records], sort_keys=True)
    print(shown if args.json else "\n".join(table(records)))
    if args.plots is not None:
        for path in plots(records, args.plots):
            print(f"plot written to {short(path)}", file=sys.stderr)
    if not records:
        print(f"error: {short(args.file)} holds no run", file=sys.stderr)
    return 0 if records else 1


def add_canary(commands: Any) -> None:
    canary = commands.add_parser("canary", help="ask the canaries again: has the judge changed?")
    canary.add_argument("--judge", help="the judge's SPEC (default: the demo's two judges)")
    canary.add_argument("--judge-config", type=Path, help="settings of a judge on the wire")
    canary.add_argument("--judge-timeout", type=positive, metavar="S", help=TIME_LIMIT)
    canary.add_argument("--record", action="store_true", help="record its replies instead")
    canary.add_argument("--threshold", type=CHANGES, default=THRESHOLD, help="changes allowed")
    canary.add_argument("--json", action="store_true", help="print one JSON object")


def run_canary(args: argparse.Namespace) -> int:
    """The canaries of one judge: exit 1 when it changed, or could not be checked. With none
    named, the demo: the steady judge (unchanged) and a judge its provider updated (changed),
    exit 0 when the check tells them apart."""
    specs = [args.judge] if args.judge else ["steady", "fakes.judges:updated_judge"]
    found, refused = {}, False
    with ExitStack() as stack:
        for spec in specs:
            judge = asked_anew(spec, args.judge_config, args.judge_timeout, stack)
            name = instrument(judge.judge, spec)
            if args.record:
                refused |= not record_all(judge, name)
                continue
            must_be_recorded(name)  # before a question is asked
            found[f"{spec} ({name})"] = check(name, replies(judge.judge), args.threshold)
            if (down := settle(judge)["unavailable"]) is not None:  # why too little came back
                print(f"error: the judge {spec} is {down}", file=sys.stderr)
    if args.json:
        print(dumps({label: c.to_json() for label, c in found.items()}, sort_keys=True))
    else:
        for label, c in found.items():
            print(f"canaries of {label}: {c.verdict or 'NOT EVALUATED — ' + c.outcome.reason}")
    states = [c.state for c in found.values()]
    if args.judge or args.record:
        return 1 if refused or Finding.FOUND in states or Finding.NOT_EVALUATED in states else 0
    return 0 if states == [Finding.NOT_FOUND, Finding.FOUND] else 1  # the demo: a working check


def record_all(choice: JudgeChoice, name: str) -> bool:
    """Record the judge's replies when it answered every question. Otherwise one error line
    says how many it answered, and why when known, and the recording stays as it was."""
    answered = replies(choice.judge)
    if (why := unfinished(name, answered)) is None:
        print(record(name, answered))
        return True
    down = settle(choice)["unavailable"]
    print(f"error: {why}" + (f"; the judge is {down}" if down else ""), file=sys.stderr)
    return False


if __name__ == "__main__":
    sys.exit(run_cli(main))
