"""Which judge, on the wire: stage 8's SPECs (biased, steady, module.path:attribute), each
call guarded (stage 6's guard.py), and openai:MODEL, an OpenAI-compatible endpoint (client.py). A
command reads its wire options once, into a `JudgeRequest`, and reaches its judge through a
`Wire`, which a later stage replaces to bring judges of its own to the same commands.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from stages.s01_model.errors import CourseInputError
from stages.s06_resilience.guard import TIMEOUT_S, Guard, GuardedJudge
from stages.s08_eval.specs import PLUG_IN, JudgeChoice, resolve
from stages.s08_eval.specs import SPECS as EVAL_SPECS
from stages.s12_real_judge.settings import Settings, load_settings

SPECS = f"{EVAL_SPECS}, openai:MODEL"


@dataclass(frozen=True)
class JudgeRequest:
    """The judge a command was asked for, and how: its options, read once."""

    spec: str  # --judge
    config: Path | None = None  # --judge-config: the settings an openai: judge overrides
    use_journal: bool = True  # False with --no-cache: ask anew, and keep nothing
    progress: bool | None = None  # True with --progress; None shows it on a terminal only
    timeout_s: float | None = None  # --judge-timeout: what each call may take (None: default)
    record: bool = False  # a later stage's --record: keep the replies beyond the journal

    def settings(self, base: Settings | None = None) -> Settings:
        """The defaults (or `base`), what the settings file overrides, then the time limit."""
        found = load_settings(self.config, base)
        return found if self.timeout_s is None else replace(found, timeout_s=self.timeout_s)

    def guard(self) -> Guard:
        """Stage 8's guard of a plug-in, with the time limit and the progress asked for."""
        limit = PLUG_IN.timeout_s if self.timeout_s is None else self.timeout_s
        return replace(PLUG_IN, timeout_s=limit, progress=self.progress, set_by="--judge-timeout")


def resolve_real(
    request: JudgeRequest, base: Settings | None = None, make: Callable[..., Any] | None = None
) -> JudgeChoice:
    """The judge a request names, ready for the wire; a bad SPEC is a one-line CourseInputError.
    A later stage's judge of openai:MODEL is `make`, its settings' defaults `base`."""
    spec = request.spec
    if not spec.startswith("openai:"):
        guard = request.guard()
        chosen = resolve(spec, guard)  # a plug-in comes guarded, a fake unguarded: never twice
        if not chosen.fake:
            return chosen
        return replace(chosen, judge=GuardedJudge(chosen.judge, spec, guard))
    model = spec.removeprefix("openai:")
    if not model:
        raise CourseInputError(f"--judge {spec!r}: name the model, as in openai:MODEL")
    try:  # the client needs the optional extra, which `make` installs
        from stages.s12_real_judge.client import OpenAIJudge
    except ImportError as error:
        raise CourseInputError(
            f"--judge {spec!r}: the openai package is not installed ({error}); `make` installs it"
        ) from None
    settings = request.settings(base)
    journal, progress = request.use_journal, request.progress
    real = (make or OpenAIJudge)(model, settings, use_journal=journal, progress=progress)
    return JudgeChoice(real, spec, fake=False)


TIME_LIMIT = f"seconds a judge call may take (default {TIMEOUT_S:g}; openai: timeout_s)"


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
    parser.add_argument("--judge-timeout", type=positive, metavar="S", help=TIME_LIMIT)


def kept_nothing(request: JudgeRequest, choice: JudgeChoice) -> None:
    """Nothing of a run is kept beyond the journal."""


@dataclass(frozen=True)
class Wire:
    """How a command reaches its judge: the SPECs it names, the options it adds, how a request
    becomes a judge, what it keeps once the run ends."""

    specs: str = SPECS
    options: Callable[[argparse.ArgumentParser], None] = add_options
    choose: Callable[[JudgeRequest], JudgeChoice] = resolve_real
    keep: Callable[[JudgeRequest, JudgeChoice], None] = kept_nothing


WIRE = Wire()


def control_of(request: JudgeRequest, spec: str = "steady") -> JudgeChoice:
    """The control judge, guarded with the request's time limit."""
    return resolve_real(JudgeRequest(spec, timeout_s=request.timeout_s))


def settle(choice: JudgeChoice) -> dict[str, Any]:
    """Once every call is made: the progress line ended, why the judge stopped being asked
    (`unavailable`, None while it was asked) and what a judge that describes itself says."""
    judge = choice.judge
    if isinstance(judge, GuardedJudge):
        judge.progress.finish()
    down = getattr(judge, "down", None)
    settled: dict[str, Any] = {"unavailable": down() if callable(down) else None}
    if hasattr(judge, "describe"):
        settled["instrument"] = judge.describe()
    return settled
