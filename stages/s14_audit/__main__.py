"""Stage 14: scores you already have, audited.

    python -m stages.s14_audit [FILE] [--score-col C] [--answer-col C | --length-col C]
                               [--human-col C] [--gate N] [--json]
                               [--encoding E] [--delimiter D] [--out-dir DIR]

Without a file, the demo: fixtures/team_scores.csv, a judge's scores of shop-support answers
with the labels people gave them, two of its rows unreadable on purpose. In reports/: the
disagreements with people (a review queue, JSONL), every row that could not be measured with
its problem (a skipped file), and the report's JSON.

Exit status: 0 when every measure was evaluated; 1 when one was not (too little usable data,
no usable row); 2 for bad input (a file that cannot be read, a column it does not have, a
folder that cannot be written).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from stages.s01_model.cli import FIXTURES, ROOT, Parser, run_cli, short
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import dumps, writable, write_text
from stages.s08_eval.levels import PASS_MARK
from stages.s14_audit.audit import audit as audit_file
from stages.s14_audit.audit import outputs_for
from stages.s14_audit.rows import Columns
from stages.s14_audit.summary import render, summary

REPORTS = ROOT / "reports"
DEMO_FILE = FIXTURES / "team_scores.csv"
DEMO = [short(DEMO_FILE), "--answer-col", "answer", "--human-col", "label"]


def parser(prog: str = "python -m stages.s14_audit") -> argparse.ArgumentParser:
    audit = Parser(
        prog=prog,
        description="The length confound, kappa and pass rate of scores you already have.",
    )
    audit.add_argument("file", type=Path, help="a CSV (with a header row) or JSONL file")
    audit.add_argument("--score-col", default="score", help="the judge's score (default: score)")
    size = audit.add_mutually_exclusive_group()
    size.add_argument("--answer-col", help="the answer text, whose length is measured")
    size.add_argument("--length-col", help="the answer's length, when the text is not there")
    audit.add_argument("--human-col", help="human labels: a score or pass/fail")
    gate, out = f"pass mark (default {PASS_MARK})", "where the queue and skipped go"
    audit.add_argument("--gate", type=float, default=PASS_MARK, help=gate)
    audit.add_argument("--encoding", help="the file's encoding (default: UTF-8, BOM or not)")
    audit.add_argument("--delimiter", help="a CSV file's delimiter (default: sniffed, , ; tab |)")
    audit.add_argument("--json", action="store_true", help="print one JSON object")
    audit.add_argument("--out-dir", type=Path, default=REPORTS, help=out)
    return audit


def main(argv: list[str] | None = None, prog: str = "python -m stages.s14_audit") -> int:
    """Audit a file of existing scores; its three files go to --out-dir.
    Exit 0 when every measure was evaluated, 1 when one was not (or no row was usable); a
    file that cannot be read is CourseInputError (exit 2) and writes nothing."""
    argv = sys.argv[1:] if argv is None else argv
    args = parser(prog).parse_args(argv or DEMO)  # no file: the demo
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
    files = {"review_queue": review, "skipped_file": skipped}
    shown = dumps({**result.to_json(), **files}, sort_keys=True)
    write_text(found.out.report, shown + "\n")
    print(shown if args.json else render(args.file.name, result, args.gate, review, skipped))
    if result.rows == 0:
        print("error: no usable row: nothing was audited", file=sys.stderr)
        return 1
    return 1 if result.not_evaluated else 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
