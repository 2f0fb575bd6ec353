"""Stage 8: run every case through the agent, evaluate it on three levels, test the judge.

    python -m stages.s08_eval [--judge SPEC] [--json] [--out FILE] [--cases FILE]
                              [--judge-timeout S]

Exit status: 0 for a report; 1 when the run is not successful (nothing evaluated, no case
judged, a detector without enough usable data, a control that shows bias) or the judge is
unavailable (guard.py's breaker opened); 2 for bad input (an unknown SPEC, a broken case
file, a missing key, a report that cannot be written).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from stages.s01_model.cli import ROOT, run_cli, short
from stages.s08_eval.cases import CASES_FILE, load_cases, run_case
from stages.s08_eval.detectors import load_length_pairs, load_position_pairs
from stages.s08_eval.judge import CountingJudge, Judge
from stages.s08_eval.openai_judge import PlanningJudge
from stages.s08_eval.report import build, failures, first_reason, render, writable, write
from stages.s08_eval.specs import add_judge_options, finish, resolve, resolve_judge, unavailable
from stages.s08_eval.survey import survey

REPORT_FILE = ROOT / "reports" / "s08_eval.json"


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m stages.s08_eval", description="Evaluate the agent; test the judge."
    )
    parser.add_argument("--judge", default="biased", help="biased (default), steady, module:attr")
    parser.add_argument(
        "--control", default="steady", help="the judge the detectors must find clean (steady)"
    )
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    parser.add_argument("--out", type=Path, default=REPORT_FILE, help="where to write the report")
    parser.add_argument("--cases", type=Path, default=CASES_FILE, help="the case file")
    add_judge_options(parser)
    args = parser.parse_args()

    out = writable(args.out, "--out")
    chosen = resolve_judge(args)
    steady = resolve(args.control, timeout_s=args.judge_timeout)
    runs = [run_case(case) for case in load_cases(args.cases)]
    position_pairs, length_pairs, surveyed = load_position_pairs(), load_length_pairs(), survey()

    def report_with(judge: Judge) -> dict[str, Any]:
        return build(
            runs,
            CountingJudge(judge, chosen.name),
            CountingJudge(steady.judge, steady.name),
            fake=chosen.fake,
            position_pairs=position_pairs,
            length_pairs=length_pairs,
            survey=surveyed,
        )

    prefetch = getattr(chosen.judge, "prefetch", None)
    if prefetch is not None:
        # 1) plan every question the report will ask, 2) ask them `concurrency` at a time
        #    into the cache, 3) build the report in order from there: same replies, same order
        planner = PlanningJudge()
        report_with(planner)
        prefetch(planner.planned)
    report = report_with(chosen.judge)
    finish(chosen, steady)
    describe = getattr(chosen.judge, "describe", None)
    if describe is not None:
        report["judge"]["instrument"] = describe()
    for side, choice in (("judge", chosen), ("control", steady)):
        report[side]["unavailable"] = unavailable(choice)  # known once every call is made
    report["not_successful"] = failures(report)
    print(json.dumps(report, sort_keys=True) if args.json else render(report))
    write(report, out)
    print(f"report written to {short(out)}", file=sys.stderr)
    if report["not_successful"]:
        print(
            f"error: run is not successful: {first_reason(report['not_successful'])}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
