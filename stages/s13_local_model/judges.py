"""The judges this stage adds to stage 12's: `local`, a small real model served on 127.0.0.1
for as long as a command runs (local.py), and `replay`, its recorded replies (recording.py).

The rest — stage 8's SPECs and openai:MODEL — are stage 12's, reached the same way.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path

from stages.s01_model.cli import ROOT
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.specs import JudgeChoice
from stages.s12_real_judge import judges
from stages.s12_real_judge.judges import Wire, resolve_real
from stages.s12_real_judge.settings import Settings, load_settings
from stages.s13_local_model.schemas import StructuredJudge, StructuredSettings

SPECS = f"{judges.SPECS}, local, replay"
# the local model answers in JSON as llama-cpp-python's server takes a schema; a bare number
# is beyond it ("The answer is 10."), and `{"verdict": "second"}` needs more than 8 tokens
LOCAL = StructuredSettings(structured="json_object", max_tokens=24)
LOCAL_LOG = ROOT / "reports" / "local-judge.log"


def resolve_judge(
    spec: str,
    settings_path: Path | None = None,
    use_journal: bool = True,
    progress: bool | None = None,
    timeout_s: float | None = None,
    stack: ExitStack | None = None,
) -> JudgeChoice:
    """The judge a SPEC names: local and replay here, every other SPEC as stage 12 resolves
    it. `local` starts its server on `stack`, which stops it when the command ends."""
    if spec not in ("local", "replay"):  # openai:MODEL may ask for structured replies too
        return resolve_real(
            spec,
            settings_path,
            use_journal,
            progress,
            timeout_s,
            StructuredSettings(),
            StructuredJudge,
        )
    settings = load_settings(settings_path, LOCAL)
    if timeout_s is not None:
        settings = replace(settings, timeout_s=timeout_s)
    if spec == "replay":
        from stages.s13_local_model.recording import ReplayJudge

        return JudgeChoice(ReplayJudge(settings), spec, fake=False)
    if stack is None:
        raise CourseInputError("--judge local: the local model is served by the commands")
    return serve_local(stack, settings, use_journal, progress)


def serve_local(
    stack: ExitStack, settings: Settings, use_journal: bool, progress: bool | None
) -> JudgeChoice:
    """The local model, checked and served on 127.0.0.1 until `stack` closes."""
    from stages.s13_local_model import local

    command = local.llama_server(local.model_file())
    url = stack.enter_context(local.LocalServer(command, LOCAL_LOG))
    # journalled by the model file's hash: a new port each run, the same instrument
    real = StructuredJudge(
        local.MODEL_NAME, settings, base_url=url, use_journal=use_journal, progress=progress,
        identity=local.IDENTITY,
    )  # fmt: skip
    return JudgeChoice(real, "local", fake=False)


def add_options(parser: argparse.ArgumentParser) -> None:
    """Stage 12's options, and --record."""
    judges.add_options(parser)
    record = "add the local judge's replies to its recording (replayed by --judge replay)"
    parser.add_argument("--record", action="store_true", help=record)


def choose(args: argparse.Namespace, stack: ExitStack | None = None) -> JudgeChoice:
    """The judge of `--judge`; --record is refused, before any call, for any but local."""
    if args.record and args.judge != "local":
        raise CourseInputError(f"--record: only --judge local is recorded, not {args.judge!r}")
    progress = True if args.progress else None
    return resolve_judge(
        args.judge, args.judge_config, not args.no_cache, progress, args.judge_timeout, stack
    )


def keep(args: argparse.Namespace, choice: JudgeChoice) -> None:
    """With --record: add the replies this run received to the local judge's recording."""
    if args.record:
        from stages.s12_real_judge.client import OpenAIJudge
        from stages.s13_local_model.recording import save

        assert isinstance(choice.judge, OpenAIJudge), "choose lets only the local judge record"
        print(save(choice.judge.received()), file=sys.stderr)


WIRE = Wire(SPECS, add_options, choose, keep)
