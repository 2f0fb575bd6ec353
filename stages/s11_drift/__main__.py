"""Stage 11: scores you already have, collected over time.

    python -m stages.s11_drift audit FILE [--score-col C] [--answer-col C | --length-col C]
                                          [--human-col C] [--gate N] [--json]
                                          [--encoding E] [--delimiter D] [--out-dir DIR]
    python -m stages.s11_drift compare [RUN_A RUN_B] [--labels FILE [FILE]] [--json]
    python -m stages.s11_drift correct [REPORT LABELS] [--id-col C] [--human-col C] [--json]
    python -m stages.s11_drift canary [--judge SPEC] [--record] [--threshold N] [--json]
    python -m stages.s11_drift calibrate --history FILE [--judge SPEC] [wire options]
    python -m stages.s11_drift gate --history FILE [--judge SPEC] [--canaries] [wire options]
    python -m stages.s11_drift history FILE [--plots DIR] [--json]
    python -m stages.s11_drift windows [FILE FILE ... | --history FILE] [--last N] [--json]

Without a command, `audit` runs on the demo file fixtures/team_scores.csv: a judge's scores
of shop-support answers with the labels people gave them, two of its rows unreadable on
purpose. The disagreements with the people go to a review queue (JSONL), and every row that
could not be measured, with its problem, to a skipped file, both in reports/.

Exit status: 0 when every measure was evaluated and nothing changed; 1 when one was not
evaluated (too little usable data, no usable row), or a change was found (a checked level
moved, a canary changed, a gate rule failed, a shift or a steady rise in the windows); 2 for
bad input (a file that cannot be read, a column it does not have, a folder that cannot be
written). Each demo exits 0 when it tells the flawed judge from the steady one.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from stages.s01_model.cli import FIXTURES, ROOT, run_cli, short
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.findings import Finding
from stages.s08_eval.report import writable
from stages.s09_calibration.calibration import GATE
from stages.s10_real_judge.judges import positive, settle
from stages.s11_drift import history
from stages.s11_drift.audit import audit as audit_file
from stages.s11_drift.audit import outputs_for, render, summary
from stages.s11_drift.canary import (
    THRESHOLD,
    asked_anew,
    check,
    instrument,
    must_be_recorded,
    record_all,
    replies,
)
from stages.s11_drift.corrected import add_correct, run_correct
from stages.s11_drift.difference import run_compare
from stages.s11_drift.tables import Columns
from stages.s11_drift.tracked import add_commands, run_calibrate, run_gate, run_history
from stages.s11_drift.windows import LAST, Window, demo_windows, drift, read_window
from stages.s11_drift.windows import render as render_windows

REPORTS = ROOT / "reports"
DEMO_FILE = FIXTURES / "team_scores.csv"
DEMO = ["audit", short(DEMO_FILE), "--answer-col", "answer", "--human-col", "label"]


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m stages.s11_drift",
        description="Measure scores you already have, and how they change.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    add_audit(commands)
    add_over_time(commands)
    add_commands(commands)
    add_correct(commands)
    # A mistyped option is reported by the command it was given to, with that command's usage.
    args, unknown = parser.parse_known_args(sys.argv[1:] or DEMO)  # no command: the demo
    if unknown:
        commands.choices[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    run = {"audit": run_audit, "compare": run_compare, "canary": run_canary}
    run |= {"calibrate": run_calibrate, "gate": run_gate, "history": run_history}
    run |= {"windows": run_windows, "correct": run_correct}
    return run[args.command](args)


def add_audit(commands: Any) -> None:
    audit = commands.add_parser("audit", help="length confound and kappa of scores you have")
    audit.add_argument("file", type=Path, help="a CSV (with a header row) or JSONL file")
    audit.add_argument("--score-col", default="score", help="the judge's score (default: score)")
    size = audit.add_mutually_exclusive_group()
    size.add_argument("--answer-col", help="the answer text, whose length is measured")
    size.add_argument("--length-col", help="the answer's length, when the text is not there")
    audit.add_argument("--human-col", help="human labels: a score or pass/fail")
    audit.add_argument("--gate", type=float, default=GATE, help=f"pass mark (default {GATE})")
    audit.add_argument("--encoding", help="the file's encoding (default: UTF-8, BOM or not)")
    audit.add_argument("--delimiter", help="a CSV file's delimiter (default: sniffed, , ; tab |)")
    audit.add_argument("--json", action="store_true", help="print one JSON object")
    audit.add_argument(
        "--out-dir", type=Path, default=REPORTS, help="where the queue and skipped go"
    )


def add_over_time(commands: Any) -> None:
    """compare, canary and windows; calibrate, gate and history are tracked.py's."""
    compare = commands.add_parser("compare", help="two versions of the agent, length held equal")
    compare.add_argument("runs", type=Path, nargs="*", help="two stage-8 JSON reports, A then B")
    compare.add_argument(
        "--labels", type=Path, nargs="+", metavar="FILE",
        help="people's labels (id, human): one file for both runs, or one for each",
    )  # fmt: skip
    canary = commands.add_parser("canary", help="ask the canaries again: has the judge changed?")
    canary.add_argument("--judge", help="the judge's SPEC (default: the demo's two judges)")
    canary.add_argument("--judge-config", type=Path, help="settings of a judge on the wire")
    canary.add_argument(
        "--judge-timeout", type=positive, metavar="S", help="seconds a call may take"
    )
    canary.add_argument("--record", action="store_true", help="record its replies instead")
    canary.add_argument("--threshold", type=int, default=THRESHOLD, help="changes allowed")
    windows = commands.add_parser("windows", help="scores over time: shifts, and a steady rise")
    windows.add_argument(
        "files", type=Path, nargs="*", help="a file of scores per window, oldest first"
    )
    windows.add_argument("--history", type=Path, help="the windows: a calibration history's runs")
    windows.add_argument("--score-col", default="score", help="the score's column (default: score)")
    windows.add_argument(
        "--last", type=int, default=LAST, help=f"steps a rise must span (default {LAST})"
    )
    for command in (compare, canary, windows):
        command.add_argument("--json", action="store_true", help="print one JSON object")


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
        print(json.dumps({label: c.to_json() for label, c in found.items()}, sort_keys=True))
    else:
        for label, c in found.items():
            print(f"canaries of {label}: {c.verdict or 'NOT EVALUATED — ' + c.outcome.reason}")
    states = [c.state for c in found.values()]
    if args.judge or args.record:
        return 1 if refused or Finding.FOUND in states or Finding.NOT_EVALUATED in states else 0
    return 0 if states == [Finding.NOT_FOUND, Finding.FOUND] else 1  # the demo: a working check


def run_windows(args: argparse.Namespace) -> int:
    """How the scores moved from window to window; exit 1 on a shift, a steady rise, or a
    figure not evaluated. The demo exits 0 when it finds the biased judge's rise only."""
    drifts = {label: drift(windows, args.last) for label, windows in windows_of(args).items()}
    if args.json:
        print(json.dumps({label: d.to_json() for label, d in drifts.items()}, sort_keys=True))
    else:
        for label, d in drifts.items():
            print(f"{label}: " + "\n".join(render_windows(d)))
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
            Window(f"run {i} ({r['when']})", tuple(r["figures"]["scores"]), 0) for i, r in runs
        ]}  # fmt: skip
    if args.files:
        return {"your windows": [read_window(path, args.score_col) for path in args.files]}
    return {f"the {judge} judge": demo_windows(judge) for judge in ("biased", "steady")}


def run_audit(args: argparse.Namespace) -> int:
    """Audit a file of existing scores; the review queue and the skipped rows go to --out-dir.
    Exit 0 when every measure was evaluated, 1 when one was not (or no row was usable); a
    file that cannot be read is CourseInputError (exit 2) and writes nothing."""
    if not (args.answer_col or args.length_col):
        raise CourseInputError(
            "audit: name the answer column (--answer-col) or its length (--length-col)"
        )
    columns = Columns(args.score_col, args.answer_col, args.length_col, args.human_col)
    for path in outputs_for(args.file, args.out_dir):  # checked before the file is read
        writable(path, "--out-dir")
    found = audit_file(args.file, columns, args.gate, args.out_dir, args.encoding, args.delimiter)
    result = summary(found, columns)
    review, skipped = short(found.out.review), short(found.out.skipped)
    if args.json:
        files = {"review_queue": review, "skipped_file": skipped}
        print(json.dumps({**result, **files}, sort_keys=True))
    else:
        print(render(args.file.name, result, args.gate, review, skipped))
    if result["rows"] == 0:
        print("error: no usable row: nothing was audited", file=sys.stderr)
        return 1
    return 1 if result["not_evaluated"] else 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
