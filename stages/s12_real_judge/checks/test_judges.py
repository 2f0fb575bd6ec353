"""A judge on the wire: every SPEC but openai: behind the guard, and the options that tune it."""

import argparse
import contextlib
from pathlib import Path

import pytest

from fakes.judges import BiasedJudge, SteadyJudge
from stages.s01_model.errors import CourseInputError
from stages.s06_resilience.guard import TIMEOUT_S, GuardedJudge
from stages.s08_eval.specs import JudgeChoice
from stages.s12_real_judge.commands import request_of
from stages.s12_real_judge.judges import (
    JudgeRequest,
    add_options,
    positive,
    resolve_real,
    settle,
)


def guarded(choice):
    """The guard a resolved judge sits behind."""
    assert isinstance(choice.judge, GuardedJudge)
    return choice.judge


def test_a_model_must_be_named():
    with pytest.raises(CourseInputError) as raised:
        resolve_real(JudgeRequest("openai:"))
    assert str(raised.value) == "--judge 'openai:': name the model, as in openai:MODEL"


@pytest.mark.failure_mode
@pytest.mark.parametrize("spec", ["biased", "fakes.judges:SteadyJudge"])
def test_every_judge_but_the_real_one_is_guarded_with_the_time_limit_asked_for(spec):
    assert guarded(resolve_real(JudgeRequest(spec, timeout_s=1.5))).guard.timeout_s == 1.5
    assert guarded(resolve_real(JudgeRequest(spec))).guard.timeout_s == TIMEOUT_S


@pytest.mark.parametrize(
    ("spec", "inside"), [("biased", BiasedJudge), ("fakes.judges:SteadyJudge", SteadyJudge)]
)
def test_a_judge_is_guarded_once_whether_stage_8_guarded_it_or_not(spec, inside):
    # stage 8 guards a plug-in and asks a fake directly; here both sit behind one guard
    judge = guarded(resolve_real(JudgeRequest(spec, timeout_s=1.5))).judge
    assert type(judge) is inside
    assert guarded(resolve_real(JudgeRequest(spec))).guard.set_by == "--judge-timeout"


def parsed(*argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--judge", default="biased")
    add_options(parser)
    return parser, parser.parse_args(argv)


def test_the_judge_options_are_read_and_explained():
    _, defaults = parsed()
    assert (defaults.judge_config, defaults.no_cache, defaults.progress) == (None, False, False)
    assert defaults.judge_timeout is None  # the guard's TIMEOUT_S, or a real judge's setting
    parser, given = parsed("--judge", "steady", "--judge-timeout", "2.5", "--progress",
                           "--no-cache", "--judge-config", "mine.toml")  # fmt: skip
    assert (given.judge_timeout, given.progress, given.no_cache) == (2.5, True, True)
    assert given.judge_config == Path("mine.toml")
    choice = resolve_real(request_of(given))
    assert guarded(choice).guard.timeout_s == 2.5 and guarded(choice).progress.live is True
    text = " ".join(parser.format_help().split())
    for fragment in ("--judge-config JUDGE_CONFIG settings of an openai: judge (TOML)",
                     "--no-cache ask anew; skip the journal",
                     "--progress live progress without a terminal",
                     f"--judge-timeout S seconds a judge call may take (default {TIMEOUT_S:g}; "
                     "openai: timeout_s)"):  # fmt: skip
        assert fragment in text


@pytest.mark.parametrize(
    ("text", "problem"),
    [("0", "'0': a time limit must be above 0 and finite"),
     ("-1", "'-1': a time limit must be above 0 and finite"),
     ("inf", "'inf': a time limit must be above 0 and finite"),
     ("nan", "'nan': a time limit must be above 0 and finite"),
     ("soon", "'soon' is not a number of seconds")],
)  # fmt: skip
def test_a_time_limit_is_a_number_of_seconds_above_zero(text, problem):
    with pytest.raises(argparse.ArgumentTypeError) as raised:
        positive(text)
    assert str(raised.value) == problem
    assert positive("0.5") == 0.5


def unavailable(choice):
    return settle(choice)["unavailable"]


def test_a_judge_found_dead_says_why_and_one_still_asked_says_nothing():
    choice = resolve_real(JudgeRequest("steady", timeout_s=1.0))
    assert settle(choice) == {"unavailable": None}  # no instrument: it does not describe itself
    breaker = guarded(choice).breaker
    for _ in range(3):
        with contextlib.suppress(ConnectionError):
            breaker.record(TimeoutError("no answer within 1 s"))
    assert unavailable(choice) == (
        "unavailable after 3 failed calls in a row (TimeoutError: no answer within 1 s); "
        "judge steady, at most 1 s a call (--judge-timeout); the rest were not asked"
    )
    assert unavailable(JudgeChoice(SteadyJudge(), "bare", fake=False)) is None  # no breaker


def test_settling_ends_a_live_progress_line_and_ignores_judges_without_one(capsys):
    choice = resolve_real(JudgeRequest("steady", progress=True))
    guarded(choice).progress.shown = True  # as if a live line had been drawn
    settle(choice)
    settle(JudgeChoice(SteadyJudge(), "bare", fake=False))
    assert capsys.readouterr().err == "\n"


def test_the_spec_s_name_and_progress_reach_the_guard():
    choice = resolve_real(JudgeRequest("fakes.judges:SteadyJudge", progress=False))
    assert guarded(choice).progress.live is False
    assert guarded(choice).progress.label == "judge fakes.judges:SteadyJudge"
    assert (
        "judge fakes.judges:SteadyJudge, at most 30 s a call" in guarded(choice).breaker.instrument
    )
    assert guarded(resolve_real(JudgeRequest("biased", progress=False))).progress.live is False
