"""Stage 9: calibrate a judge before trusting it.

    python -m stages.s09_calibration report [--judge SPEC] [--json] [--plots DIR] [--repeats N]
    python -m stages.s09_calibration gate [--judge SPEC] [--config FILE]
    python -m stages.s09_calibration audit FILE [--score-col C] [--answer-col C | --length-col C]
                                                [--human-col C] [--gate N] [--json]
                                                [--encoding E] [--delimiter D] [--out-dir DIR]

Without a command, `report` runs. The judge (default: the biased fake) and the steady
control are measured side by side on the calibration set and its twins. The disagreements
with the human labels are written to a review queue (JSONL) next to the report.

Exit status: 0 for a report whose every measure was evaluated; 1 when one was not (too little
usable data, or a judge found unavailable), and for `gate`, when a rule fails; 2 for bad
input (an unknown SPEC, a repeat count below 1, a file that cannot be read or written).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from stages.s01_model.cli import ROOT, run_cli, short
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.findings import Finding
from stages.s08_eval.judge import CountingJudge
from stages.s08_eval.openai_judge import PlanningJudge
from stages.s08_eval.report import first_reason, writable, write_text
from stages.s08_eval.specs import (
    JudgeChoice,
    add_judge_options,
    finish,
    resolve,
    resolve_judge,
    unavailable,
)
from stages.s09_calibration.audit import audit as audit_file
from stages.s09_calibration.audit import outputs_for, summary
from stages.s09_calibration.calibrate import REPEATS, SEED, calibrate, failures, rubric_change
from stages.s09_calibration.calibration import GATE, CalCase, Twins, load_calibration, load_twins
from stages.s09_calibration.gate import GATE_FILE, judge_gate, load_gate
from stages.s09_calibration.rubrics import Rubric
from stages.s09_calibration.structured import KEYS
from stages.s09_calibration.tables import Columns

REPORT_FILE = ROOT / "reports" / "s09_calibration.json"
RUBRIC_RECORD = Path(__file__).resolve().parent / "rubric_change.json"


def at_least_one(text: str) -> int:
    """An argparse type: a count of scorings, 1 or more (0 scorings measure nothing)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: each text must be scored at least once")
    return value


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m stages.s09_calibration",
        description="Calibrate a judge against people and twins.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser("report", help="the full calibration report")
    report.add_argument("--judge", default="biased", help="biased (default), steady, module:attr")
    report.add_argument("--json", action="store_true", help="print one JSON object")
    report.add_argument("--repeats", type=at_least_one, default=REPEATS, help="scorings per text")
    report.add_argument("--out", type=Path, default=REPORT_FILE, help="where to write it")
    report.add_argument("--reply", choices=("bare", "json"), default="bare", help="reply form")
    report.add_argument("--plots", type=Path, help="write PNG plots to this folder")
    add_judge_options(report)
    report.add_argument(
        "--write-rubric-record",
        action="store_true",
        help=f"also write the rubric change to {RUBRIC_RECORD.name} (the lesson quotes it)",
    )
    gate = commands.add_parser("gate", help="exit 1 unless the judge passes every rule")
    gate.add_argument("--judge", default="biased", help="biased (default), steady, module:attr")
    gate.add_argument("--config", type=Path, default=GATE_FILE, help="thresholds (TOML)")
    gate.add_argument("--reply", choices=("bare", "json"), default="bare", help="reply form")
    add_judge_options(gate)
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
        "--out-dir", type=Path, default=REPORT_FILE.parent, help="where the queue and skipped go"
    )
    # A mistyped option is reported by the command it was given to, with that command's usage.
    args, unknown = parser.parse_known_args(sys.argv[1:] or ["report"])  # no command: report
    if unknown:
        commands.choices[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command == "audit":
        return run_audit(args)
    if args.command == "gate":
        return run_gate(args)
    return run_report(args)


def run_report(args: argparse.Namespace) -> int:
    """Measure the judge and the control, and the judge again under the checklist rubric."""
    out = writable(args.out, "--out")  # checked before a single call is made
    queue = writable(out.with_suffix(".review.jsonl"), "--out")
    if args.plots is not None and args.plots.exists() and not args.plots.is_dir():
        raise CourseInputError(f"--plots {args.plots}: is a file; name a folder for the plots")
    cases, twins = load_calibration(), load_twins()
    chosen, steady = resolve_judge(args), resolve("steady", timeout_s=args.judge_timeout)
    prefetch_for(chosen.judge, cases, twins, args.repeats, args.reply, both_rubrics=True)
    counted = {"judge": CountingJudge(chosen.judge, chosen.name),
               "control": CountingJudge(steady.judge, steady.name)}  # fmt: skip
    replies = {"judge": args.reply, "control": "bare"}  # the steady fake replies bare numbers
    measured = {
        side: calibrate(judge, cases, twins, repeats=args.repeats, seed=SEED, reply=replies[side])
        for side, judge in counted.items()
    }
    again = CountingJudge(chosen.judge, chosen.name)
    checklist = calibrate(
        again, cases, twins, repeats=args.repeats, seed=SEED, reply=args.reply, rubric=Rubric.FACTS
    )
    finish(chosen, steady)
    for side, choice in (("judge", chosen), ("control", steady)):
        measured[side]["judge"]["calls_in_all"] = counted[side].calls + (
            again.calls if side == "judge" else 0
        )
        measured[side]["judge"]["unavailable"] = unavailable(choice)
    describe = getattr(chosen.judge, "describe", None)
    if describe is not None:
        measured["judge"]["judge"]["instrument"] = describe()
    result = {
        **measured["judge"],
        "reply": args.reply,
        "control": measured["control"],
        "rubric_change": rubric_change(measured["judge"], checklist),
    }
    result["not_successful"] = failures(result)
    print(json.dumps(result, sort_keys=True) if args.json else render(result))
    if args.write_rubric_record:
        write_text(RUBRIC_RECORD, json.dumps(result["rubric_change"], indent=2) + "\n")
    write_text(out, json.dumps(result, indent=2, sort_keys=True) + "\n")
    write_text(queue, "".join(json.dumps(row) + "\n" for row in result["calibration"]["queue"]))
    if args.plots:
        from stages.s09_calibration.plots import draw  # matplotlib loads only when asked

        for path in draw(measured["judge"], args.plots, SEED):
            print(f"plot written to {short(path)}", file=sys.stderr)
    print(f"report written to {short(out)}; review queue in {short(queue)}", file=sys.stderr)
    if result["not_successful"]:
        print(f"error: run is not successful: {first_reason(result['not_successful'])}",
              file=sys.stderr)  # fmt: skip
        return 1
    return 0


def prefetch_for(
    judge: Any, cases: list[CalCase], twins: dict[str, Twins], repeats: int, reply: str,
    both_rubrics: bool = False,
) -> None:  # fmt: skip
    """For a judge that can ask many questions at once (openai:), ask them all first."""
    prefetch = getattr(judge, "prefetch", None)
    if prefetch is None:
        return
    planner = PlanningJudge()
    rubrics = [Rubric.OPEN, Rubric.FACTS] if both_rubrics else [Rubric.OPEN]
    for rubric in rubrics:
        calibrate(CountingJudge(planner, "plan"), cases, twins, repeats=repeats, seed=SEED,
                  reply=reply, rubric=rubric)  # fmt: skip
    prefetch(planner.planned)


def run_gate(args: argparse.Namespace) -> int:
    """Measure the judge, check every rule, print each; 1 when any fails."""
    config = load_gate(args.config)
    chosen: JudgeChoice = resolve_judge(args)
    prefetch_for(chosen.judge, load_calibration(), load_twins(), REPEATS, args.reply)
    counted = CountingJudge(chosen.judge, chosen.name)
    measured = calibrate(counted, load_calibration(), load_twins(), reply=args.reply)
    finish(chosen)
    rules = judge_gate(measured, config)
    print(f"calibration gate for {chosen.name} ({short(args.config)}):")
    print(f"  {counted.calls} calls, {unscored_line(measured['unscored'], args.reply)}")
    if (down := unavailable(chosen)) is not None:
        print(f"  the judge is {down}")
    for rule in rules:
        verdict = "pass" if rule.passed else "FAIL"
        print(f"  {verdict}  {rule.name}: {rule.value} — {rule.limit}")
    failed = sum(not rule.passed for rule in rules)
    print(f"{'FAILED' if failed else 'passed'}: {len(rules) - failed} of {len(rules)} rules")
    return 1 if failed else 0


def run_audit(args: argparse.Namespace) -> int:
    """Audit a file of existing scores; the review queue and the skipped rows go next to the
    report. Exit 0 when every measure was evaluated, 1 when one was not (or no row was
    usable); a file that cannot be read is CourseInputError (exit 2) and writes nothing."""
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
        print(
            f"audit of {args.file.name}: {result['data_rows']} rows, {result['rows']} measured, "
            f"{result['skipped']} skipped"
        )
        for problem in result["problems"]:
            print(f"  skipped {problem}")
        if result["skipped"] > len(result["problems"]):
            print(f"  ... and {result['skipped'] - len(result['problems'])} more")
        print(f"every skipped row, with its problem: {skipped}")
        confound = result["length_confound"]
        measures = [
            ("length_confound", "length confound",
             f"spearman {_number(confound['spearman'])} {_interval(confound['ci'])}, "
             f"pearson {_number(confound['pearson'])}"),
        ]  # fmt: skip
        if "calibration" in result:
            c = result["calibration"]
            measures.append((
                "calibration", f"agreement with people at gate {args.gate:g}",
                f"kappa {_number(c['kappa'])} (observed {_number(c['observed'])}, by chance "
                f"{_number(c['expected'])}), {c['disagreements']} disagreements",
            ))  # fmt: skip
        for name, label, figures in measures:
            if name in result["not_evaluated"]:
                print(f"{label}: NOT EVALUATED — {result[name]['reason']}")
            else:
                print(f"{label}: {figures} — {result[name]['verdict']}")
        print(f"review queue (the disagreements): {review}")
    if result["rows"] == 0:
        print("error: no usable row: nothing was audited", file=sys.stderr)
        return 1
    return 1 if result["not_evaluated"] else 0


def _interval(ci: list[float] | None) -> str:
    return "n/a" if ci is None else f"[{ci[0]:+.2f}, {ci[1]:+.2f}]"


def _number(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def unscored_line(unscored: dict[str, Any], reply: str) -> str:
    """How many replies were unusable and why, with one as the judge gave it."""
    if not unscored["count"]:
        return "0 unscored"
    why = ", ".join(f"{count} {reason}" for reason, count in unscored["reasons"].items())
    line = f"{unscored['count']} unscored ({why})"
    if unscored["example"] is not None:
        line += f"; e.g. {unscored['example'][:80]!r}"
    if reply == "json":
        line += f"; asked for strict JSON with exactly the keys {sorted(KEYS)}, score 0-10"
    return line


def _measure(name: str, measure: dict[str, Any], figures: str) -> str:
    """One measure's line: its figures and verdict, or why it is not evaluated."""
    if measure["state"] == Finding.NOT_EVALUATED:
        return f"  {name}: NOT EVALUATED — {measure['reason']}"
    lost = measure["unscored"]
    counts = f" ({measure['usable']} usable of {measure['total']}, {lost} unscored)" if lost else ""
    return f"  {name}: {figures} — {measure['verdict']}{counts}"


def render(result: dict[str, Any]) -> str:
    sides = [("judge", result), ("control", result["control"])]
    lines = ["Stage 9 — calibration report"]
    first, *more = result["not_successful"] or [""]
    if first:
        lines.append(f"RUN IS NOT SUCCESSFUL: {first}")
        lines += [f"  and: {reason}" for reason in more]
    lines.append("")
    for label, measured in sides:
        judge, verbosity, concise = measured["judge"], measured["verbosity"], measured["concise"]
        pairwise, selfpref = measured["pairwise"], measured["self_preference"]
        calibration, confound = measured["calibration"], measured["length_confound"]
        reply = result["reply"] if label == "judge" else "bare"  # the control replies bare
        unscored = unscored_line(measured["unscored"], reply)
        lines.append(f"{label}: {judge['name']} ({judge['calls']} calls, {unscored})")
        if "instrument" in judge:
            i = judge["instrument"]
            lines.append(
                f"  instrument: {i['model']} at {i['endpoint']} — {i['requests']} requests, "
                f"{i['paid_calls']} replies received, {i['from_cache']} from the journal "
                f"(the rubric change included)"
            )
        lines += [
            _measure("verbosity", verbosity,
                     f"mean delta {_number(verbosity['mean_delta'])} {_interval(verbosity['ci'])},"
                     f" {verbosity['flips']} of {verbosity['n']} flip at the gate, each text "
                     f"scored {verbosity['repeats']} times"),
            _measure("concise", concise,
                     f"mean delta {_number(concise['mean_delta'])} {_interval(concise['ci'])}, "
                     f"{concise['flips']} of {concise['n']} flip"),
            _measure("pairwise", pairwise,
                     f"{pairwise['pairs']} pairs in both orders ({pairwise['calls']} calls): "
                     f"swap consistency {_number(pairwise['swap_consistency'])}; bullets "
                     f"{pairwise['bullets']}, prose {pairwise['prose']}, tie {pairwise['tie']}"),
            _measure("self-preference", selfpref,
                     f"gap {_number(selfpref['gap'])} {_interval(selfpref['ci'])} over "
                     f"{selfpref['pairs']} equal pairs"),
            _measure("length confound", confound,
                     f"spearman {_number(confound['spearman'])} {_interval(confound['ci'])}, "
                     f"pearson {_number(confound['pearson'])}"),
            _measure("agreement with people", calibration,
                     f"kappa {_number(calibration['kappa'])} (observed "
                     f"{_number(calibration['observed'])}, by chance "
                     f"{_number(calibration['expected'])}); {calibration['disagreements']} "
                     "disagreements to review"),
            "",
        ]  # fmt: skip
    change = result["rubric_change"]
    before, after = change["open"], change["facts"]
    lines += [
        f"rubric change for {result['judge']['name']}: open-ended -> required-facts checklist "
        f"({after['calls']} more calls, {result['judge']['calls_in_all']} in all)",
        _measure("verbosity and kappa", change,
                 f"mean delta {_number(before['verbosity_mean_delta'])} -> "
                 f"{_number(after['verbosity_mean_delta'])} ({before['verbosity_verdict']} -> "
                 f"{after['verbosity_verdict']}), flips {before['flips']} -> {after['flips']}, "
                 f"kappa {_number(before['kappa'])} -> {_number(after['kappa'])}"),
    ]  # fmt: skip
    return "\n".join(lines).rstrip()


if __name__ == "__main__":
    sys.exit(run_cli(main))
