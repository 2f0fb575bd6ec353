"""Which judge to use, on the wire: stage 8's SPECs, each behind a guard, and `openai:MODEL`.

biased, steady, module.path:attribute   as in stage 8 (specs.py), each call now guarded:
                                        a time limit, a breaker, progress (guard.py)
openai:MODEL                            an OpenAI-compatible endpoint (OPENAI_API_KEY,
                                        OPENAI_BASE_URL), with --judge-config FILE's settings
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from stages.s01_model.errors import CourseInputError
from stages.s08_eval.specs import JudgeChoice, resolve
from stages.s10_real_judge.guard import TIMEOUT_S, Breaker, GuardedJudge
from stages.s10_real_judge.settings import load_settings

SPECS = "biased (default), steady, module.path:attribute, openai:MODEL"


def resolve_real(
    spec: str,
    settings_path: Path | None = None,
    use_journal: bool = True,
    progress: bool | None = None,
    timeout_s: float | None = None,
) -> JudgeChoice:
    """The judge a SPEC names, ready for the wire; a bad SPEC is a one-line CourseInputError.

    `timeout_s` limits each call (TIMEOUT_S by default; for openai:, the settings' timeout_s
    unless given); `progress` None shows progress on a terminal only.
    """
    if not spec.startswith("openai:"):
        chosen = resolve(spec)
        limit = TIMEOUT_S if timeout_s is None else timeout_s
        return replace(chosen, judge=GuardedJudge(chosen.judge, spec, limit, progress))
    model = spec.removeprefix("openai:")
    if not model:
        raise CourseInputError(f"--judge {spec!r}: name the model, as in openai:MODEL")
    try:  # the client needs the optional extra, which `make` installs
        from stages.s10_real_judge.client import OpenAIJudge
    except ImportError as error:
        raise CourseInputError(
            f"--judge {spec!r}: the openai package is not installed ({error}); `make` installs it"
        ) from None
    settings = load_settings(settings_path)
    if timeout_s is not None:
        settings = replace(settings, timeout_s=timeout_s)
    real = OpenAIJudge(model, settings, use_journal=use_journal, progress=progress)
    return JudgeChoice(real, spec, fake=False)


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
    parser.add_argument(
        "--judge-timeout",
        type=positive,
        metavar="S",
        help=f"seconds a judge call may take (default {TIMEOUT_S:g}; openai: timeout_s)",
    )


def chosen_by(args: argparse.Namespace) -> tuple[JudgeChoice, JudgeChoice]:
    """The judge of `--judge` with the options of add_options, and the guarded control."""
    chosen = resolve_real(
        args.judge,
        args.judge_config,
        not args.no_cache,
        progress=True if args.progress else None,
        timeout_s=args.judge_timeout,
    )
    control = getattr(args, "control", "steady")  # stage 9's control is always steady
    return chosen, resolve_real(control, timeout_s=args.judge_timeout)


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
