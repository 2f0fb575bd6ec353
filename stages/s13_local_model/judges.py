"""The judges this stage adds to stage 12's: `local`, a small real model served on 127.0.0.1
for as long as a command runs (local.py), and `replay`, its recorded replies (recording.py).
Each takes a model's name (`local:qwen-1.5b`, models.py); alone, they are the first model's.

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
from stages.s13_local_model import local, models
from stages.s13_local_model.models import Model
from stages.s13_local_model.schemas import StructuredJudge, StructuredSettings

SPECS = f"{judges.SPECS}, local[:MODEL], replay[:MODEL]"
# the local model answers in JSON as llama-cpp-python's server takes a schema; a bare number
# is beyond it ("The answer is 10."), and `{"verdict": "second"}` needs more than 8 tokens
LOCAL = local.LocalSettings(structured="json_object", max_tokens=24)
LOCAL_LOG = ROOT / "reports" / "local-judge.log"


def local_model(spec: str) -> tuple[str, Model] | None:
    """("local" or "replay", the model) for a SPEC of this stage's; None for any other."""
    kind, _, name = spec.partition(":")
    return (kind, models.named(name)) if kind in ("local", "replay") else None


def resolve_judge(request: JudgeRequest, stack: ExitStack | None = None) -> JudgeChoice:
    """The judge a request names: local[:MODEL] and replay[:MODEL] here, every other SPEC as
    stage 12 resolves it. `local` starts its server on `stack`, which stops it at the end."""
    found = local_model(request.spec)
    if found is None:  # openai:MODEL may ask for structured replies
        return resolve_real(request, StructuredSettings(), StructuredJudge)
    kind, model = found
    settings = request.settings(LOCAL)
    if kind == "replay":
        from stages.s13_local_model.recording import ReplayJudge

        replay = ReplayJudge(settings, model)
        replay.spec = request.spec
        return JudgeChoice(replay, request.spec, fake=False)
    if stack is None:
        raise CourseInputError("--judge local: the local model is served by the commands")
    return serve_local(stack, settings, request, model)


def serve_local(
    stack: ExitStack, settings: Settings, request: JudgeRequest, model: Model
) -> JudgeChoice:
    """The model, checked and served on 127.0.0.1 until `stack` closes."""
    command = local.llama_server(model, models.model_file(model))
    url = stack.enter_context(local.LocalServer(command, LOCAL_LOG))
    real = StructuredJudge(
        model.alias, settings, base_url=url, use_journal=request.use_journal,
        progress=request.progress,
    )  # fmt: skip
    real.identity = model.identity  # journalled by its file's hash: a new port, the same model
    real.spec = request.spec
    return JudgeChoice(real, request.spec, fake=False)


def add_options(parser: argparse.ArgumentParser) -> None:
    """Stage 12's options, and --record."""
    judges.add_options(parser)
    record = "add the local judge's replies to its recording (replayed by --judge replay)"
    parser.add_argument("--record", action="store_true", help=record)


def choose(request: JudgeRequest, stack: ExitStack | None = None) -> JudgeChoice:
    """The judge of `--judge`; --record is refused, before any call, for any but local."""
    found = local_model(request.spec)
    if request.record and (found is None or found[0] != "local"):
        raise CourseInputError(f"--record: only --judge local is recorded, not {request.spec!r}")
    return resolve_judge(request, stack)


def keep(request: JudgeRequest, choice: JudgeChoice) -> None:
    """With --record: add the replies this run received to the local judge's recording."""
    if request.record:
        from stages.s12_real_judge.client import OpenAIJudge
        from stages.s13_local_model.recording import save

        judge, found = choice.judge, local_model(request.spec)
        assert isinstance(judge, OpenAIJudge) and found, "choose lets only local judges record"
        received = {key: reply for key, reply in judge.known.items() if isinstance(reply, str)}
        print(save(received, found[1]), file=sys.stderr)  # the replies it got, not its failures


def wire(stack: ExitStack) -> Wire:
    """How stage 12's commands reach these judges; `local` is served until `stack` closes."""
    return Wire(SPECS, add_options, partial(choose, stack=stack), keep)
