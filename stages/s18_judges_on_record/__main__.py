"""Stage 18: real judges on record, measured with everything the course built.

    python -m stages.s18_judges_on_record [report] [--json]
    python -m stages.s18_judges_on_record audit FILE [--encoding E] [--delimiter D] [--json]

`report`, the default: six judges' recorded verdicts on LLMBar's 419 pairs, from the
committed fixture; exit 0 when every measure was evaluated and the control shows nothing.
`audit FILE`: the same for a pairwise log of yours; exit 0 when every measure was evaluated
and none found anything, else 1. Bad input: exit 2.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from stages.s01_model.cli import Parser, run_cli
from stages.s01_model.files import dumps
from stages.s18_judges_on_record import pairlog, record, report


def main(argv: list[str] | None = None, prog: str = "python -m stages.s18_judges_on_record") -> int:
    """The report on the recorded judges, or the audit of a pairwise log of your own."""
    parser = Parser(prog=prog, description="Real judges on record: biases, agreement, a panel.")
    commands = parser.add_subparsers(dest="command")
    shown = commands.add_parser("report", help="the recorded judges (the default)")
    mine = commands.add_parser("audit", help="a pairwise log of your own, CSV or JSONL")
    mine.add_argument("file", type=Path, help="the log: a pair a row (the stage's README)")
    mine.add_argument("--encoding", help="the file's text encoding (default: UTF-8, BOM or not)")
    mine.add_argument("--delimiter", help="a CSV file's delimiter (default: sniffed)")
    for each in (parser, shown, mine):
        each.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    found: Any
    if args.command == "audit":
        found = pairlog.audit(args.file, args.encoding, args.delimiter)
        lines = pairlog.render(found)
    else:
        found = report.report(record.load())
        lines = report.render(found)
    print(dumps(found.to_json()) if args.json else "\n".join(lines))
    return 0 if found.clean() else 1


if __name__ == "__main__":
    sys.exit(run_cli(main))
