"""Stage 9: calibrate a judge before trusting it.

    python -m stages.s09_calibration report [--judge SPEC] [--json] [--plots DIR] [--repeats N]
    python -m stages.s09_calibration gate [--judge SPEC] [--config FILE]
    python -m stages.s09_calibration audit FILE [--score-col C] [--answer-col C | --length-col C]
                                                [--human-col C] [--gate N] [--json]

Without a command, `report` runs. The judge (default: the biased fake) and the steady
control are measured side by side on the calibration set and its twins. The disagreements
with the human labels are written to a review queue (JSONL) next to the report.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from stages.s01_model.cli import ROOT, run_cli, short
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.judge import CountingJudge
from stages.s08_eval.openai_judge import PlanningJudge
from stages.s08_eval.specs import JudgeChoice, resolve
from stages.s09_calibration.audit import Columns, summary
from stages.s09_calibration.audit import audit as audit_file
from stages.s09_calibration.calibrate import REPEATS, SEED, calibrate, rubric_change
from stages.s09_calibration.calibration import GATE, CalCase, Twins, load_calibration, load_twins
from stages.s09_calibration.gate import GATE_FILE, judge_gate, load_gate
from stages.s09_calibration.rubrics import Rubric

REPORT_FILE = ROOT / "reports" / "s09_calibration.json"
RUBRIC_RECORD = Path(__file__).resolve().parent / "rubric_change.json"


def main() -> int:
    parser = argparse.ArgumentParser(description="Calibrate a judge against people and twins.")
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser("report", help="the full calibration report")
    report.add_argument("--judge", default="biased", help="biased (default), steady, module:attr")
    report.add_argument("--json", action="store_true", help="print one JSON object")
    report.add_argument("--repeats", type=int, default=REPEATS, help="scorings per text")
    report.add_argument("--out", type=Path, default=REPORT_FILE, help="where to write it")
    report.add_argument("--reply", choices=("bare", "json"), default="bare", help="reply form")
    report.add_argument("--plots", type=Path, help="write PNG plots to this folder")
    add_real_judge_options(report)
    report.add_argument(
        "--write-rubric-record",
        action="store_true",
        help=f"also write the rubric change to {RUBRIC_RECORD.name} (the lesson quotes it)",
    )
    gate = commands.add_parser("gate", help="exit 1 unless the judge passes every rule")
    gate.add_argument("--judge", default="biased", help="biased (default), steady, module:attr")
    gate.add_argument("--config", type=Path, default=GATE_FILE, help="thresholds (TOML)")
    gate.add_argument("--reply", choices=("bare", "json"), default="bare", help="reply form")
    add_real_judge_options(gate)
    audit = commands.add_parser("audit", help="length confound and kappa of scores you have")
    audit.add_argument("file", type=Path, help="a CSV (with a header row) or JSONL file")
    audit.add_argument("--score-col", default="score", help="the judge's score (default: score)")
    size = audit.add_mutually_exclusive_group()
    size.add_argument("--answer-col", help="the answer text, whose length is measured")
    size.add_argument("--length-col", help="the answer's length, when the text is not there")
    audit.add_argument("--human-col", help="human labels: a score or pass/fail")
    audit.add_argument("--gate", type=float, default=GATE, help=f"pass mark (default {GATE})")
    audit.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(sys.argv[1:] or ["report"])  # no command: the report
    if args.command == "audit":
        return run_audit(args)
    if args.command == "gate":
        return run_gate(real_judge(args), args.config, args.reply)

    cases, twins = load_calibration(), load_twins()
    chosen, steady = real_judge(args), resolve("steady")
    prefetch_for(chosen.judge, cases, twins, args.repeats, args.reply, both_rubrics=True)
    measured = {
        side: calibrate(CountingJudge(choice.judge, choice.name), cases, twins,
                        repeats=args.repeats, seed=SEED, reply=args.reply)
        for side, choice in (("judge", chosen), ("control", steady))
    }  # fmt: skip
    checklist = calibrate(
        CountingJudge(chosen.judge, chosen.name), cases, twins,
        repeats=args.repeats, seed=SEED, reply=args.reply, rubric=Rubric.FACTS,
    )  # fmt: skip
    describe = getattr(chosen.judge, "describe", None)
    if describe is not None:
        measured["judge"]["judge"]["instrument"] = describe()
    result = {
        **measured["judge"],
        "control": measured["control"],
        "rubric_change": rubric_change(measured["judge"], checklist),
    }
    if args.write_rubric_record:
        RUBRIC_RECORD.write_text(json.dumps(result["rubric_change"], indent=2) + "\n")
    queue = args.out.with_suffix(".review.jsonl")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    queue.write_text(
        "".join(json.dumps(row) + "\n" for row in result["calibration"]["queue"]), encoding="utf-8"
    )
    print(json.dumps(result, sort_keys=True) if args.json else render(result))
    if args.plots:
        from stages.s09_calibration.plots import draw  # matplotlib loads only when asked

        for path in draw(measured["judge"], args.plots, SEED):
            print(f"plot written to {short(path)}", file=sys.stderr)
    print(f"report written to {short(args.out)}; review queue in {short(queue)}", file=sys.stderr)
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


def add_real_judge_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--judge-config", type=Path, help="settings of an openai: judge (TOML)")
    parser.add_argument("--no-cache", action="store_true", help="an openai: judge asks anew")
    parser.add_argument("--progress", action="store_true", help="progress even without a terminal")


def real_judge(args: argparse.Namespace) -> JudgeChoice:
    return resolve(
        args.judge, args.judge_config, not args.no_cache, progress=True if args.progress else None
    )


def run_gate(chosen: JudgeChoice, config_path: Path, reply: str) -> int:
    """Measure the judge, check every rule, print each; 1 when any fails."""
    config = load_gate(config_path)
    prefetch_for(chosen.judge, load_calibration(), load_twins(), REPEATS, reply)
    measured = calibrate(
        CountingJudge(chosen.judge, chosen.name), load_calibration(), load_twins(), reply=reply
    )
    rules = judge_gate(measured, config)
    print(f"calibration gate for {chosen.name} ({short(config_path)}):")
    for rule in rules:
        verdict = "pass" if rule.passed else "FAIL"
        print(f"  {verdict}  {rule.name}: {rule.value} — {rule.limit}")
    failed = sum(not rule.passed for rule in rules)
    print(f"{'FAILED' if failed else 'passed'}: {len(rules) - failed} of {len(rules)} rules")
    return 1 if failed else 0


def run_audit(args: argparse.Namespace) -> int:
    """Audit a file of existing scores; the review queue goes next to the file's report."""
    if not (args.answer_col or args.length_col):
        raise CourseInputError(
            "audit: name the answer column (--answer-col) or its length (--length-col)"
        )
    columns = Columns(args.score_col, args.answer_col, args.length_col, args.human_col)
    queue_path = REPORT_FILE.with_name(f"audit-{args.file.stem}.review.jsonl")
    queue_path.parent.mkdir(parents=True, exist_ok=True)
    with queue_path.open("w", encoding="utf-8") as queue:
        result = summary(audit_file(args.file, columns, args.gate, queue), columns)
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        confound = result["length_confound"]
        print(f"audit of {args.file.name}: {result['rows']} rows read, {result['skipped']} skipped")
        for problem in result["problems"]:
            print(f"  skipped {problem}")
        print(
            f"length confound: pearson {_number(confound['pearson'])}, "
            f"spearman {_number(confound['spearman'])}"
        )
        if "calibration" in result:
            c = result["calibration"]
            word = "trustworthy" if c["trustworthy"] else "NOT trustworthy"
            print(
                f"agreement with people at gate {args.gate:g}: kappa {_number(c['kappa'])} "
                f"(observed {_number(c['observed'])}, by chance {_number(c['expected'])}) — "
                f"{word}; {c['disagreements']} disagreements in {short(queue_path)}"
            )
    if result["rows"] == 0:
        print("error: no usable row: nothing was audited", file=sys.stderr)
        return 1
    return 0


def _interval(ci: list[float] | None) -> str:
    return "n/a" if ci is None else f"[{ci[0]:+.2f}, {ci[1]:+.2f}]"


def _number(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def render(result: dict[str, Any]) -> str:
    sides = [("judge", result), ("control", result["control"])]
    lines = ["Stage 9 — calibration report", ""]
    change = result["rubric_change"]
    before, after = change["open"], change["facts"]
    for label, measured in sides:
        judge, verbosity, concise = measured["judge"], measured["verbosity"], measured["concise"]
        pairwise, selfpref = measured["pairwise"], measured["self_preference"]
        calibration, confound = measured["calibration"], measured["length_confound"]
        lines += [
            f"{label}: {judge['name']} ({judge['calls']} calls, {measured['unscored']} unscored)",
            f"  verbosity: mean delta {_number(verbosity['mean_delta'])} "
            f"{_interval(verbosity['ci'])}, {verbosity['flips']} of {verbosity['n']} flip at "
            f"the gate, each text scored {verbosity['repeats']} times — {verbosity['bias']}",
            f"  concise:   mean delta {_number(concise['mean_delta'])} "
            f"{_interval(concise['ci'])}, {concise['flips']} of {concise['n']} flip — "
            f"{concise['bias']}",
            f"  pairwise:  {pairwise['pairs']} pairs in both orders ({pairwise['calls']} calls): "
            f"swap consistency {_number(pairwise['swap_consistency'])}; bullets "
            f"{pairwise['bullets']}, prose {pairwise['prose']}, tie {pairwise['tie']}",
            f"  self-preference: gap {_number(selfpref['gap'])} {_interval(selfpref['ci'])} "
            f"over {selfpref['pairs']} equal pairs — {selfpref['recommendation']}",
            f"  length confound: pearson {_number(confound['pearson'])}, "
            f"spearman {_number(confound['spearman'])}",
            f"  agreement with people: kappa {_number(calibration['kappa'])} (observed "
            f"{_number(calibration['observed'])}, by chance {_number(calibration['expected'])})"
            f" — {'trustworthy' if calibration['trustworthy'] else 'NOT trustworthy'}; "
            f"{calibration['disagreements']} disagreements to review",
            "",
        ]
    lines += [
        f"rubric change for {result['judge']['name']}: open-ended -> required-facts checklist",
        f"  verbosity mean delta {_number(before['verbosity_mean_delta'])} -> "
        f"{_number(after['verbosity_mean_delta'])} ({before['verbosity_bias']} -> "
        f"{after['verbosity_bias']}), flips {before['flips']} -> {after['flips']}, "
        f"kappa {_number(before['kappa'])} -> {_number(after['kappa'])}",
    ]
    return "\n".join(lines).rstrip()


if __name__ == "__main__":
    sys.exit(run_cli(main))
