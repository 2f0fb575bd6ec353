"""Which judge to use, from a command-line SPEC.

biased                  the deliberately biased fake (the default)
steady                  the steady fake, which grades content only
module.path:attribute   any object with `score` and `compare`, or a class or zero-argument
                        factory that returns one (e.g. fakes.judges:favours_second_slot)
openai:MODEL            an OpenAI-compatible endpoint (OPENAI_API_KEY, OPENAI_BASE_URL), with
                        the settings of stages/s08_eval/openai_judge.toml or --judge-config
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from pathlib import Path

from fakes.judges import BiasedJudge, SteadyJudge
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.judge import Judge

BUILT_IN = {"biased": BiasedJudge, "steady": SteadyJudge}
METHODS = ("score", "compare")


@dataclass(frozen=True)
class JudgeChoice:
    judge: Judge
    name: str
    fake: bool  # a built-in fake: deterministic by construction, so repeat checks can run


def resolve(
    spec: str,
    settings_path: Path | None = None,
    use_cache: bool = True,
    progress: bool | None = None,
) -> JudgeChoice:
    """The judge a SPEC names; a spec that names none is a one-line CourseInputError."""
    if spec in BUILT_IN:
        return JudgeChoice(BUILT_IN[spec](), spec, fake=True)
    if spec.startswith("openai:"):
        model = spec.removeprefix("openai:")
        if not model:
            raise CourseInputError(f"--judge {spec!r}: name the model, as in openai:MODEL")
        try:
            from stages.s08_eval.openai_judge import OpenAIJudge, load_settings
        except ImportError as error:  # the optional extra is missing
            raise CourseInputError(
                f"--judge {spec!r}: the openai package is not installed ({error}); "
                "`make` installs it"
            ) from None
        settings = load_settings(settings_path) if settings_path else load_settings()
        judge = OpenAIJudge(model, settings, use_cache=use_cache, progress=progress)
        return JudgeChoice(judge, spec, fake=False)
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise CourseInputError(
            f"--judge {spec!r}: expected biased, steady or module.path:attribute"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise CourseInputError(
            f"--judge {spec!r}: cannot import {module_name!r} ({error})"
        ) from None
    if not hasattr(module, attribute):
        raise CourseInputError(f"--judge {spec!r}: {module_name} has no attribute {attribute!r}")
    found = getattr(module, attribute)
    if inspect.isclass(found) or (callable(found) and not hasattr(found, "score")):
        try:
            found = found()
        except TypeError as error:
            raise CourseInputError(
                f"--judge {spec!r}: cannot call it with no arguments ({error})"
            ) from None
    missing = [name for name in METHODS if not callable(getattr(found, name, None))]
    if missing:
        raise CourseInputError(
            f"--judge {spec!r}: {type(found).__name__} has no {' or '.join(missing)} method; "
            "a judge needs score(task, answer, reference) and compare(task, first, second)"
        )
    return JudgeChoice(found, spec, fake=False)
