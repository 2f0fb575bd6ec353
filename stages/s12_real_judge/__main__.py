"""Stage 12: the reports of stages 8 and 11 and the gate of stage 10, with a real instrument
on the wire (`eval`, `calibrate`, `gate`: the README shows their options). Without a command,
a demo: `eval` against a chat-completions server this command starts on 127.0.0.1."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from stages.s01_model.cli import ROOT, Parser, run_cli
from stages.s12_real_judge.commands import run_calibration, run_eval

PROG = "python -m stages.s12_real_judge"
COMMANDS = ("eval", "calibrate", "gate")
DEMO_REPORT = ROOT / "reports" / "s12_real_judge.json"


def demo() -> int:
    """`eval` against the biased fake served on 127.0.0.1; its journal is temporary."""
    from fakes.chat_server import ChatServer, answering_as
    from fakes.judges import BiasedJudge

    served = ChatServer(default=answering_as(BiasedJudge()))
    with served as server, tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "judge.toml"
        config.write_text(f'journal = "{Path(folder) / "journal.sqlite"}"\n')
        os.environ["OPENAI_BASE_URL"] = server.url
        options = ["--judge-config", str(config), "--out", str(DEMO_REPORT)]
        return run_eval(["--judge", "openai:biased-on-loopback", *options], PROG)


def main(argv: list[str] | None = None, prog: str = PROG) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        return demo()
    if argv[0] not in COMMANDS:
        top = Parser(prog=prog, description=__doc__.splitlines()[0])
        top.add_argument("command", choices=COMMANDS, help="eval, calibrate or gate")
        top.parse_args(argv[:1])  # prints the usage and exits 2, or the help and exits 0
    return run_eval(argv[1:], prog) if argv[0] == "eval" else run_calibration(argv, prog)


if __name__ == "__main__":
    sys.exit(run_cli(main))
