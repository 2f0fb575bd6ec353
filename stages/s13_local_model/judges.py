"""The judges this stage adds to stage 12's: `local`, a small real model served on 127.0.0.1
for as long as a command runs (local.py), and `replay`, its recorded replies (recording.py).

The rest — stage 8's SPECs and openai:MODEL — are stage 12's, reached the same way.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from functools import partial

from stages.s01_model.cli import ROOT
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.specs import JudgeChoice
from stages.s12_real_judge import judges
from stages.s12_real_judge.judges import JudgeRequest, Wire, resolve_real
from stages.s12_real_judge.settings import Settings
from stages.s13_local_model.schemas import StructuredJudge, StructuredSettings

SPECS = f"{judges.SPECS}, local, replay"
# the local model answers in JSON as llama-cpp-python's server takes a schema; a bare number
# is beyond it ("The answer is 10."), and `{"verdict": "second"}` needs more than 8 tokens
LOCAL = StructuredSettings(structured="json_object", max_tokens=24)
LOCAL_LOG = ROOT / "reports" / "local-judge.log"


def resolve_judge(request: JudgeRequest, stack: ExitStack | None = None) -> JudgeChoice:
    """The judge a request names: local and replay here, every other SPEC as stage 12
    resolves it. `local` starts its server on `stack`, which stops it when the command ends."""
    if request.spec not in ("local", "replay"):  # openai:MODEL may ask for structured replies
        return resolve_real(request, StructuredSettings(), StructuredJudge)
    settings = request.settings(LOCAL)
    if request.spec == "replay":
        from stages.s13_local_model.recording import ReplayJudge

        return JudgeChoice(ReplayJudge(settings), request.spec, fake=False)
    if stack is None:
        raise CourseInputError("--judge local: the local model is served by the commands")
    return serve_local(stack, settings, request)


def serve_local(stack: ExitStack, settings: Settings, request: JudgeRequest) -> JudgeChoice:
    """The local model, checked and served on 127.0.0.1 until `stack` closes."""
    from stages.s13_local_model import local

    command = local.llama_server(local.model_file())
    url = stack.enter_context(local.LocalServer(command, LOCAL_LOG))
    real = StructuredJudge(
        local.MODEL_NAME, settings, base_url=url, use_journal=request.use_journal,
        progress=request.progress,
    )  # fmt: skip
    real.identity = local.IDENTITY  # journalled by its file's hash: a new port, the same model
    return JudgeChoice(real, "local", fake=False)


def add_options(parser: argparse.ArgumentParser) -> None:
    """Stage 12's options, and --record."""
    judges.add_options(parser)
    record = "add the local judge's replies to its recording (replayed by --judge replay)"
    parser.add_argument("--record", action="store_true", help=record)


def choose(request: JudgeRequest, stack: ExitStack | None = None) -> JudgeChoice:
    """The judge of `--judge`; --record is refused, before any call, for any but local."""
    if request.record and request.spec != "local":
        raise CourseInputError(f"--record: only --judge local is recorded, not {request.spec!r}")
    return resolve_judge(request, stack)


def keep(request: JudgeRequest, choice: JudgeChoice) -> None:
    """With --record: add the replies this run received to the local judge's recording."""
    if request.record:
        from stages.s12_real_judge.client import OpenAIJudge
        from stages.s13_local_model.recording import save

        judge = choice.judge
        assert isinstance(judge, OpenAIJudge), "choose lets only the local judge record"
        received = {key: reply for key, reply in judge.known.items() if isinstance(reply, str)}
        print(save(received), file=sys.stderr)  # the replies this run got, not its failures


def wire(stack: ExitStack) -> Wire:
    """How stage 12's commands reach these judges; `local` is served until `stack` closes."""
    return Wire(SPECS, add_options, partial(choose, stack=stack), keep)
