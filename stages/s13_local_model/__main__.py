"""Stage 13: a real model on this machine. Stage 12's commands with `--judge local[:MODEL]`
(a model served by llama.cpp on 127.0.0.1; the bundled one without a name, models.toml lists
the rest) and `--judge replay[:MODEL]` (its recorded replies), and `pad`, padded twins made by
a model and checked.

    python -m stages.s13_local_model eval      [stage 12's eval options] [--record]
    python -m stages.s13_local_model calibrate [stage 12's calibrate options] [--record]
    python -m stages.s13_local_model gate      [stage 12's gate options] [--record]
    python -m stages.s13_local_model pad       [--judge local|replay|openai:MODEL] [--out FILE]
    python -m stages.s13_local_model calibrate --judge replay:qwen-1.5b

Without a command, `calibrate --judge replay`: the recorded replies of the local model, with
no model and no server. Exit status as stage 12's; `pad` exits 1 when the judge stopped
answering.
"""

from __future__ import annotations

import sys
from contextlib import ExitStack
from pathlib import Path

from stages.s01_model.cli import Parser, run_cli, short
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import writable
from stages.s09_calibration.calibration import load_calibration
from stages.s12_real_judge.client import OpenAIJudge
from stages.s12_real_judge.commands import request_of, run_calibration, run_eval
from stages.s13_local_model.judges import add_options, choose, keep, wire
from stages.s13_local_model.padding import REVIEW_FILE, pad, review, summary

PROG = "python -m stages.s13_local_model"
COMMANDS = ("eval", "calibrate", "gate", "pad")


def run_pad(argv: list[str], prog: str = PROG) -> int:
    """Padded twins from the judge's model, each held to stage 9's check; ten for review."""
    parser = Parser(prog=f"{prog} pad", description=run_pad.__doc__)
    parser.add_argument("--judge", default="local", help="local (default), replay, openai:MODEL")
    parser.add_argument("--out", type=Path, default=REVIEW_FILE, help="the twins to review")
    add_options(parser)
    args = parser.parse_args(argv)
    out, request = writable(args.out, "--out"), request_of(args)
    with ExitStack() as stack:
        chosen = choose(request, stack)
        if not isinstance(chosen.judge, OpenAIJudge):
            raise CourseInputError(
                f"pad --judge {args.judge}: needs a model (local, replay, openai:)"
            )
        padded = pad(chosen.judge, load_calibration())
        keep(request, chosen)
    print("\n".join(summary(padded)))
    print(f"{review(padded, out)} twins that passed written to {short(out)} for review")
    down = chosen.judge.down()
    if down is not None:
        print(f"error: the judge {down}", file=sys.stderr)
    return 0 if down is None else 1


def main(argv: list[str] | None = None, prog: str = PROG) -> int:
    argv = (sys.argv[1:] if argv is None else argv) or ["calibrate", "--judge", "replay"]
    if argv[0] not in COMMANDS:
        top = Parser(prog=prog, description=__doc__.splitlines()[0])
        top.add_argument("command", choices=COMMANDS, help="eval, calibrate, gate or pad")
        top.parse_args(argv[:1])  # prints the usage and exits 2, or the help and exits 0
    if argv[0] == "pad":
        return run_pad(argv[1:], prog)
    with ExitStack() as stack:  # the local model's server, stopped however the command ends
        if argv[0] == "eval":
            return run_eval(argv[1:], prog, wire(stack))
        return run_calibration(argv, prog, wire(stack))


if __name__ == "__main__":
    sys.exit(run_cli(main))
