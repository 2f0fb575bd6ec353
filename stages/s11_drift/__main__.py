"""Stage 11: scores you already have, collected over time.

    python -m stages.s11_drift audit FILE [--score-col C] [--answer-col C | --length-col C]
                                          [--human-col C] [--gate N] [--json]
                                          [--encoding E] [--delimiter D] [--out-dir DIR]

Without a command, `audit` runs on the demo file fixtures/team_scores.csv: a judge's scores
of shop-support answers with the labels people gave them, two of its rows unreadable on
purpose. The disagreements with the people go to a review queue (JSONL), and every row that
could not be measured, with its problem, to a skipped file, both in reports/.

Exit status: 0 when every measure was evaluated; 1 when one was not (too little usable
data), or when no row was usable; 2 for bad input (a file that cannot be read, a column it
does not have, a folder that cannot be written).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from stages.s01_model.cli import FIXTURES, ROOT, run_cli, short
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.report import writable
from stages.s09_calibration.calibration import GATE
from stages.s11_drift.audit import audit as audit_file
from stages.s11_drift.audit import outputs_for, summary
from stages.s11_drift.tables import Columns

REPORTS = ROOT / "reports"
DEMO_FILE = FIXTURES / "team_scores.csv"
DEMO = ["audit", short(DEMO_FILE), "--answer-col", "answer", "--human-col", "label"]


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m stages.s11_drift",
        description="Measure scores you already have.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
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
    # A mistyped option is reported by the command it was given to, with that command's usage.
    args, unknown = parser.parse_known_args(sys.argv[1:] or DEMO)  # no command: the demo
    if unknown:
        commands.choices[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    return run_audit(args)


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


def render(name: str, result: dict[str, Any], gate: float, review: str, skipped: str) -> str:
    """The text report: the counts, the first skipped rows, each measure, where the files are."""
    lines = [
        f"audit of {name}: {result['data_rows']} rows, {result['rows']} measured, "
        f"{result['skipped']} skipped"
    ]
    lines += [f"  skipped {problem}" for problem in result["problems"]]
    if result["skipped"] > len(result["problems"]):
        lines.append(f"  ... and {result['skipped'] - len(result['problems'])} more")
    lines.append(f"every skipped row, with its problem: {skipped}")
    for key, label, figures in measures(result, gate):
        if key in result["not_evaluated"]:
            lines.append(f"{label}: NOT EVALUATED — {result[key]['reason']}")
        else:
            lines.append(f"{label}: {figures} — {result[key]['verdict']}")
    lines.append(f"review queue (the disagreements): {review}")
    return "\n".join(lines)


def measures(result: dict[str, Any], gate: float) -> list[tuple[str, str, str]]:
    """(key in the result, label, figures) for each measure the audit made."""
    confound = result["length_confound"]
    correlation = (
        f"spearman {_number(confound['spearman'])} {_interval(confound['ci'])}, "
        f"pearson {_number(confound['pearson'])}"
    )
    found = [("length_confound", "length confound", correlation)]
    if "calibration" in result:
        c = result["calibration"]
        kappa = (
            f"kappa {_number(c['kappa'])} (observed {_number(c['observed'])}, by chance "
            f"{_number(c['expected'])}), {c['disagreements']} disagreements"
        )
        found.append(("calibration", f"agreement with people at gate {gate:g}", kappa))
    return found


def _interval(ci: list[float] | None) -> str:
    return "n/a" if ci is None else f"[{ci[0]:+.2f}, {ci[1]:+.2f}]"


def _number(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


if __name__ == "__main__":
    sys.exit(run_cli(main))
