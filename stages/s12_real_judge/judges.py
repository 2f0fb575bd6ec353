"""Which judge, on the wire: stage 8's SPECs (biased, steady, module.path:attribute), each
call now guarded (guard.py); openai:MODEL, an OpenAI-compatible endpoint (client.py); and
local, a small real model that this command serves on 127.0.0.1 for its own length (local.py).
"""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

from stages.s01_model.cli import ROOT
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.specs import JudgeChoice, resolve
from stages.s12_real_judge.guard import TIMEOUT_S, GuardedJudge
from stages.s12_real_judge.settings import Settings, load_settings

SPECS = "biased (default), steady, module.path:attribute, openai:MODEL, local, replay"
# the local model answers in JSON as llama-cpp-python's server takes a schema; a bare number
# is beyond it ("The answer is 10."), and `{"verdict": "second"}` needs more than 8 tokens
LOCAL = Settings(structured="json_object", max_tokens=24)
LOCAL_LOG = ROOT / "reports" / "local-judge.log"


def resolve_real(
    spec: str,
    settings_path: Path | None = None,
    use_journal: bool = True,
    progress: bool | None = None,
    timeout_s: float | None = None,
    stack: ExitStack | None = None,
) -> JudgeChoice:
    """The judge a SPEC names, ready for the wire; a bad SPEC is a one-line CourseInputError.
    `timeout_s` (if given) limits each call; `progress` None shows it on a terminal only.
    `local` starts its server on `stack`, which stops it when the command ends."""
    if spec in ("local", "replay"):
        settings = load_settings(settings_path, LOCAL)
        if timeout_s is not None:
            settings = replace(settings, timeout_s=timeout_s)
        if spec == "replay":
            from stages.s12_real_judge.recording import ReplayJudge

            return JudgeChoice(ReplayJudge(settings), spec, fake=False)
        if stack is None:
            raise CourseInputError("--judge local: the local model is served by the commands")
        return serve_local(stack, settings, use_journal, progress)
    if not spec.startswith("openai:"):
        chosen = resolve(spec)
        limit = TIMEOUT_S if timeout_s is None else timeout_s
        return replace(chosen, judge=GuardedJudge(chosen.judge, spec, limit, progress))
    model = spec.removeprefix("openai:")
    if not model:
        raise CourseInputError(f"--judge {spec!r}: name the model, as in openai:MODEL")
    try:  # the client needs the optional extra, which `make` installs
        from stages.s12_real_judge.client import OpenAIJudge
    except ImportError as error:
        raise CourseInputError(
            f"--judge {spec!r}: the openai package is not installed ({error}); `make` installs it"
        ) from None
    settings = load_settings(settings_path)
    if timeout_s is not None:
        settings = replace(settings, timeout_s=timeout_s)
    real = OpenAIJudge(model, settings, use_journal=use_journal, progress=progress)
    return JudgeChoice(real, spec, fake=False)


def serve_local(
    stack: ExitStack, settings: Settings, use_journal: bool, progress: bool | None
) -> JudgeChoice:
    """The local model, checked and served on 127.0.0.1 until `stack` closes."""
    from stages.s12_real_judge import local
    from stages.s12_real_judge.client import OpenAIJudge

    command = local.llama_server(local.model_file())
    url = stack.enter_context(local.LocalServer(command, LOCAL_LOG))
    # journalled by the model file's hash: a new port each run, the same instrument
    real = OpenAIJudge(
        local.MODEL_NAME, settings, base_url=url, use_journal=use_journal, progress=progress,
        identity=local.IDENTITY,
    )  # fmt: skip
    return JudgeChoice(real, "local", fake=False)


def positive(text: str) -> float:
    """An argparse type: a number of seconds above zero."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: a time limit must be above 0 and finite")
    return value


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of a judge on the wire, besides --judge itself."""
    parser.add_argument("--judge-config", type=Path, help="settings of an openai: judge (TOML)")
    parser.add_argument("--no-cache", action="store_true", help="ask anew; skip the journal")
    parser.add_argument("--progress", action="store_true", help="live progress without a terminal")
    record = "add the local judge's replies to its recording (replayed by --judge replay)"
    parser.add_argument("--record", action="store_true", help=record)
    parser.add_argument(
        "--judge-timeout",
        type=positive,
        metavar="S",
        help=f"seconds a judge call may take (default {TIMEOUT_S:g}; openai: timeout_s)",
    )


def chosen_by(
    args: argparse.Namespace, stack: ExitStack | None = None
) -> tuple[JudgeChoice, JudgeChoice]:
    """The judge of `--judge` with the options of add_options, and the guarded control."""
    chosen = resolve_real(
        args.judge,
        args.judge_config,
        not args.no_cache,
        progress=True if args.progress else None,
        timeout_s=args.judge_timeout,
        stack=stack,
    )
    if args.record and args.judge != "local":
        raise CourseInputError(f"--record: only --judge local is recorded, not {args.judge!r}")
    control = getattr(args, "control", "steady")  # stage 9's control is always steady
    return chosen, resolve_real(control, timeout_s=args.judge_timeout)


def keep(args: argparse.Namespace, choice: JudgeChoice) -> None:
    """With --record: add the replies this run received to the local judge's recording."""
    if args.record:
        from stages.s12_real_judge.client import OpenAIJudge
        from stages.s12_real_judge.recording import save

        assert isinstance(choice.judge, OpenAIJudge), "chosen_by lets only the local judge record"
        print(save(choice.judge.received()), file=sys.stderr)


def settle(choice: JudgeChoice) -> dict[str, Any]:
    """Once every call is made: the progress line ended, why the judge stopped being asked
    (`unavailable`, None while its breaker stayed shut) and, for a judge that describes
    itself, what it says (`instrument`). Neither is known before."""
    judge = choice.judge
    if isinstance(judge, GuardedJudge):
        judge.progress.finish()
    down = getattr(judge, "down", None)
    settled: dict[str, Any] = {"unavailable": down() if callable(down) else None}
    if hasattr(judge, "describe"):
        settled["instrument"] = judge.describe()
    return settled
