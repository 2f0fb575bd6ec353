"""Stage 8: run every case through the agent, evaluate it on three levels, test the judge.

    python -m stages.s08_eval [--judge SPEC] [--json] [--out FILE] [--cases FILE]

Exit status: 0 for a report; 1 when the control shows bias (the detector is broken) or when
nothing at all could be evaluated; 2 for bad input (an unknown SPEC, a broken case file).
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
from stages.s08_eval.report import build, evaluated_anything, render, write
from stages.s08_eval.specs import resolve
from stages.s08_eval.survey import survey

REPORT_FILE = ROOT / "reports" / "s08_eval.json"


def main() -> int:
    parser = argparse.ArgumentParser(description="Evaluate the agent; test the judge.")
    parser.add_argument("--judge", default="biased", help="biased (default), steady, module:attr")
    parser.add_argument(
        "--control", default="steady", help="the judge the detectors must find clean (steady)"
    )
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    parser.add_argument("--out", type=Path, default=REPORT_FILE, help="where to write the report")
    parser.add_argument("--cases", type=Path, default=CASES_FILE, help="the case file")
    parser.add_argument("--judge-config", type=Path, help="settings of an openai: judge (TOML)")
    parser.add_argument("--no-cache", action="store_true", help="an openai: judge asks anew")
    parser.add_argument(
        "--progress", action="store_true", help="show progress even when stderr is no terminal"
    )
    args = parser.parse_args()

    chosen = resolve(
        args.judge, args.judge_config, not args.no_cache, progress=True if args.progress else None
    )
    steady = resolve(args.control)
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
    describe = getattr(chosen.judge, "describe", None)
    if describe is not None:
        report["judge"]["instrument"] = describe()
    write(report, args.out)
    print(json.dumps(report, sort_keys=True) if args.json else render(report))
    print(f"report written to {short(args.out)}", file=sys.stderr)
    if not evaluated_anything(report):
        print("error: nothing was evaluated; an empty report is not a green one", file=sys.stderr)
        return 1
    if report["detector_broken"]:
        print("error: the control shows bias, so the detector cannot be trusted", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
