"""`--judge SPEC` becomes a judge, or a one-line error naming the spec and what is wrong."""

import argparse
import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fakes.judges import BiasedJudge, SteadyJudge
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.guard import TIMEOUT_S, GuardedJudge
from stages.s08_eval.specs import (
    JudgeChoice,
    add_judge_options,
    finish,
    positive,
    resolve,
    resolve_judge,
    unavailable,
)

ROOT = Path(__file__).resolve().parents[3]


def guarded(choice):
    """The guard a resolved judge sits behind."""
    assert isinstance(choice.judge, GuardedJudge)
    return choice.judge


def test_the_built_in_fakes_are_marked_as_fakes():
    biased, steady = resolve("biased"), resolve("steady")
    assert (type(guarded(biased).judge), biased.name, biased.fake) == (BiasedJudge, "biased", True)
    assert (type(guarded(steady).judge), steady.name, steady.fake) == (SteadyJudge, "steady", True)


@pytest.mark.failure_mode
@pytest.mark.parametrize("spec", ["biased", "fakes.judges:SteadyJudge"])
def test_every_judge_but_the_real_one_is_guarded_with_the_time_limit_asked_for(spec):
    assert guarded(resolve(spec, timeout_s=1.5)).timeout_s == 1.5
    assert guarded(resolve(spec)).timeout_s == TIMEOUT_S


@pytest.mark.parametrize(
    ("spec", "slot", "chars"),
    [
        ("fakes.judges:favours_second_slot", "second", 40),  # a factory
        ("fakes.judges:BiasedJudge", "first", 40),  # a class
    ],
)
def test_a_plugged_in_judge_is_built_and_not_taken_for_a_fake(spec, slot, chars):
    choice = resolve(spec)
    judge = guarded(choice).judge
    assert isinstance(judge, BiasedJudge)
    assert (judge.slot, judge.chars_per_point) == (slot, chars)
    assert (choice.name, choice.fake) == (spec, False)


def test_an_object_with_the_methods_is_used_as_it_is():
    choice = resolve("stages.s08_eval.checks.test_specs:READY_MADE")
    assert guarded(choice).judge is READY_MADE


READY_MADE = SteadyJudge()


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("gpt", "--judge 'gpt': expected biased, steady or module.path:attribute"),
        (":x", "--judge ':x': expected biased, steady or module.path:attribute"),
        (
            "fakes.judges:",
            "--judge 'fakes.judges:': expected biased, steady or module.path:attribute",
        ),
        ("openai:", "--judge 'openai:': name the model, as in openai:MODEL"),
        (
            "fakes.nowhere:J",
            "--judge 'fakes.nowhere:J': cannot import 'fakes.nowhere': "
            "ModuleNotFoundError: No module named 'fakes.nowhere'",
        ),
        ("fakes.judges:Nope", "--judge 'fakes.judges:Nope': fakes.judges has no attribute 'Nope'"),
        (
            "fakes.judges:Biased:Judge",
            "--judge 'fakes.judges:Biased:Judge': fakes.judges has no attribute 'Biased:Judge'",
        ),
        (
            "stages.s08_eval.judge:VERDICTS",
            "--judge 'stages.s08_eval.judge:VERDICTS': tuple has no score or compare method; a "
            "judge needs score(task, answer, reference) and compare(task, first, second)",
        ),
        (
            "stages.s08_eval.checks.test_specs:HALF_A_JUDGE",
            "--judge 'stages.s08_eval.checks.test_specs:HALF_A_JUDGE': HalfAJudge has no compare "
            "method; a judge needs score(task, answer, reference) and compare(task, first, second)",
        ),
        (
            "fakes.judges:grounding",
            "--judge 'fakes.judges:grounding': calling it with no arguments failed: TypeError: "
            "grounding() missing 2 required positional arguments: 'answer' and 'reference'",
        ),
    ],
)
def test_a_spec_that_names_no_judge_says_what_is_wrong(spec, message):
    with pytest.raises(CourseInputError) as raised:
        resolve(spec)
    assert str(raised.value) == message


class HalfAJudge:
    def score(self, task, answer, reference):
        return "5"


HALF_A_JUDGE = HalfAJudge()


class CallableJudge(SteadyJudge):
    """A judge that is also callable: it has the methods, so it must be used, not called."""

    def __call__(self):
        raise AssertionError("a judge with score and compare was called as a factory")


CALLABLE_JUDGE = CallableJudge()


def test_a_callable_object_with_the_methods_is_not_called():
    choice = resolve("stages.s08_eval.checks.test_specs:CALLABLE_JUDGE")
    assert guarded(choice).judge is CALLABLE_JUDGE


BROKEN_MODULES = {
    "syntax": ("def score(:\n", "SyntaxError: invalid syntax (broken_syntax.py, line 1)"),
    "raises": ("raise RuntimeError('no config\\nfound')\n", "RuntimeError: no config found"),
    "factory": ("def make():\n    raise KeyError('JUDGE_URL')\n", "KeyError: 'JUDGE_URL'"),
}


@pytest.mark.failure_mode
@pytest.mark.parametrize("kind", sorted(BROKEN_MODULES))
def test_a_plug_in_that_cannot_be_loaded_for_any_reason_is_one_line_and_exit_2(tmp_path, kind):
    source, error = BROKEN_MODULES[kind]
    (tmp_path / f"broken_{kind}.py").write_text(source)
    spec = f"broken_{kind}:make"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "stages.s08_eval", "--judge", spec, "--out", str(tmp_path / "r")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2 and result.stdout == ""
    doing = "calling it with no arguments failed" if kind == "factory" else (
        f"cannot import 'broken_{kind}'"
    )  # fmt: skip
    assert result.stderr == f"error: --judge {spec!r}: {doing}: {error}\n"


def parsed(*argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--judge", default="biased")
    add_judge_options(parser)
    return parser, parser.parse_args(argv)


def test_the_judge_options_are_read_and_explained():
    _, defaults = parsed()
    assert (defaults.judge_config, defaults.no_cache, defaults.progress) == (None, False, False)
    assert defaults.judge_timeout is None  # the guard's TIMEOUT_S, or a real judge's setting
    parser, given = parsed("--judge", "steady", "--judge-timeout", "2.5", "--progress",
                           "--no-cache", "--judge-config", "mine.toml")  # fmt: skip
    assert (given.judge_timeout, given.progress, given.no_cache) == (2.5, True, True)
    assert given.judge_config == Path("mine.toml")
    choice = resolve_judge(given)
    assert guarded(choice).timeout_s == 2.5 and guarded(choice).progress.live is True
    text = " ".join(parser.format_help().split())
    for fragment in ("--judge-config JUDGE_CONFIG settings of an openai: judge (TOML)",
                     "--no-cache an openai: judge asks anew",
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


def test_a_judge_found_dead_says_why_and_one_still_asked_says_nothing():
    choice = resolve("steady", timeout_s=1.0)
    assert unavailable(choice) is None
    breaker = guarded(choice).breaker
    for _ in range(3):
        with contextlib.suppress(ConnectionError):
            breaker.record(TimeoutError("no reply within 1 s"))
    assert unavailable(choice) == (
        "unavailable after 3 failed calls in a row (TimeoutError: no reply within 1 s); "
        "judge steady, at most 1 s a call (--judge-timeout); the rest were not asked"
    )
    assert unavailable(JudgeChoice(SteadyJudge(), "bare", fake=False)) is None  # no breaker


def test_finish_ends_a_live_progress_line_and_ignores_judges_without_one(capsys):
    choice = resolve("steady", progress=True)
    guarded(choice).progress.shown = True  # as if a live line had been drawn
    finish(choice, JudgeChoice(SteadyJudge(), "bare", fake=False))
    assert capsys.readouterr().err == "\n"


def test_the_spec_s_name_and_progress_reach_the_guard():
    choice = resolve("fakes.judges:SteadyJudge", progress=False)
    assert guarded(choice).progress.live is False
    assert guarded(choice).progress.label == "judge fakes.judges:SteadyJudge"
    assert (
        "judge fakes.judges:SteadyJudge, at most 30 s a call" in guarded(choice).breaker.instrument
    )
    assert guarded(resolve("biased", progress=False)).progress.live is False
