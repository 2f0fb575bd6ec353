"""Stage 9: calibrate a judge before trusting it.

    python -m stages.s09_calibration report [--judge SPEC] [--json] [--repeats N] [--out FILE]

The judge (default: the biased fake) and the steady control are measured side by side on
the calibration set and its twins. The disagreements with the human labels are written to a
review queue (JSONL) next to the report.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from stages.s01_model.cli import ROOT, run_cli, short
from stages.s08_eval.judge import CountingJudge
from stages.s08_eval.specs import resolve
from stages.s09_calibration.calibrate import REPEATS, SEED, calibrate
from stages.s09_calibration.calibration import load_calibration, load_twins

REPORT_FILE = ROOT / "reports" / "s09_calibration.json"


def main() -> int:
    parser = argparse.ArgumentParser(description="Calibrate a judge against people and twins.")
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser("report", help="the full calibration report")
    report.add_argument("--judge", default="biased", help="biased (default), steady, module:attr")
    report.add_argument("--json", action="store_true", help="print one JSON object")
    report.add_argument("--repeats", type=int, default=REPEATS, help="scorings per text")
    report.add_argument("--out", type=Path, default=REPORT_FILE, help="where to write it")
    args = parser.parse_args()

    cases, twins = load_calibration(), load_twins()
    chosen, steady = resolve(args.judge), resolve("steady")
    measured = {
        side: calibrate(CountingJudge(choice.judge, choice.name), cases, twins,
                        repeats=args.repeats, seed=SEED)
        for side, choice in (("judge", chosen), ("control", steady))
    }  # fmt: skip
    result = {**measured["judge"], "control": measured["control"]}
    queue = args.out.with_suffix(".review.jsonl")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    queue.write_text(
        "".join(json.dumps(row) + "\n" for row in result["calibration"]["queue"]), encoding="utf-8"
    )
    print(json.dumps(result, sort_keys=True) if args.json else render(result))
    print(f"report written to {short(args.out)}; review queue in {short(queue)}", file=sys.stderr)
    return 0


def _interval(ci: list[float] | None) -> str:
    return "n/a" if ci is None else f"[{ci[0]:+.2f}, {ci[1]:+.2f}]"


def _number(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def render(result: dict[str, Any]) -> str:
    sides = [("judge", result), ("control", result["control"])]
    lines = ["Stage 9 — calibration report", ""]
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
    return "\n".join(lines).rstrip()


if __name__ == "__main__":
    sys.exit(run_cli(main))
