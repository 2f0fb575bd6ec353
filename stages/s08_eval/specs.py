"""Which judge to use, from a command-line SPEC.

biased                  the deliberately biased fake (the default)
steady                  the steady fake, which grades content only
module.path:attribute   any object with `score` and `compare`, or a class or zero-argument
                        factory that returns one (e.g. fakes.judges:favours_second_slot)
openai:MODEL            an OpenAI-compatible endpoint (OPENAI_API_KEY, OPENAI_BASE_URL), with
                        the settings of stages/s08_eval/openai_judge.toml or --judge-config

Every judge but the real one is put behind guard.py's GuardedJudge: a time limit on each
call, a breaker for a judge that never answers, progress on stderr. The real judge has its
own timeout, retries and breaker, for the same reasons.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
from dataclasses import dataclass, replace
from pathlib import Path

from fakes.judges import BiasedJudge, SteadyJudge
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.guard import TIMEOUT_S, Breaker, GuardedJudge
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
    timeout_s: float | None = None,
) -> JudgeChoice:
    """The judge a SPEC names; a spec that names none is a one-line CourseInputError.

    `timeout_s` limits each call (TIMEOUT_S by default; a real judge's own setting unless
    given); `progress` None shows progress on a terminal only.
    """
    limit = TIMEOUT_S if timeout_s is None else timeout_s
    if spec in BUILT_IN:
        judge = GuardedJudge(BUILT_IN[spec](), spec, limit, progress)
        return JudgeChoice(judge, spec, fake=True)
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
        if timeout_s is not None:
            settings = replace(settings, timeout_s=timeout_s)
        real = OpenAIJudge(model, settings, use_cache=use_cache, progress=progress)
        return JudgeChoice(real, spec, fake=False)
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise CourseInputError(
            f"--judge {spec!r}: expected biased, steady or module.path:attribute"
        )
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # a missing module, a syntax error, an exception at import
        raise CourseInputError(
            f"--judge {spec!r}: cannot import {module_name!r}: {one_line(error)}"
        ) from None
    if not hasattr(module, attribute):
        raise CourseInputError(f"--judge {spec!r}: {module_name} has no attribute {attribute!r}")
    found = getattr(module, attribute)
    if inspect.isclass(found) or (callable(found) and not hasattr(found, "score")):
        try:
            found = found()
        except Exception as error:  # it needs arguments, or it failed while making the judge
            raise CourseInputError(
                f"--judge {spec!r}: calling it with no arguments failed: {one_line(error)}"
            ) from None
    missing = [name for name in METHODS if not callable(getattr(found, name, None))]
    if missing:
        raise CourseInputError(
            f"--judge {spec!r}: {type(found).__name__} has no {' or '.join(missing)} method; "
            "a judge needs score(task, answer, reference) and compare(task, first, second)"
        )
    return JudgeChoice(GuardedJudge(found, spec, limit, progress), spec, fake=False)


def one_line(error: BaseException) -> str:
    """An exception as one line: its type and its message, newlines folded."""
    return " ".join(f"{type(error).__name__}: {error}".split())


def positive(text: str) -> float:
    """An argparse type: a number of seconds above zero."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: a time limit must be above 0 and finite")
    return value


def add_judge_options(parser: argparse.ArgumentParser) -> None:
    """The options every command that asks a judge takes, besides --judge itself."""
    parser.add_argument("--judge-config", type=Path, help="settings of an openai: judge (TOML)")
    parser.add_argument("--no-cache", action="store_true", help="an openai: judge asks anew")
    parser.add_argument("--progress", action="store_true", help="live progress without a terminal")
    parser.add_argument(
        "--judge-timeout",
        type=positive,
        metavar="S",
        help=f"seconds a judge call may take (default {TIMEOUT_S:g}; openai: timeout_s)",
    )


def resolve_judge(args: argparse.Namespace) -> JudgeChoice:
    """The judge of `--judge`, with the options of add_judge_options."""
    return resolve(
        args.judge,
        args.judge_config,
        not args.no_cache,
        progress=True if args.progress else None,
        timeout_s=args.judge_timeout,
    )


def finish(*choices: JudgeChoice) -> None:
    """End the judges' progress lines before the report is printed."""
    for choice in choices:
        done = getattr(choice.judge, "finish", None)
        if done is not None:
            done()


def unavailable(choice: JudgeChoice) -> str | None:
    """Why the run stopped asking this judge (its breaker opened); None if it never did."""
    breaker = getattr(choice.judge, "breaker", None)
    return breaker.down() if isinstance(breaker, Breaker) else None
