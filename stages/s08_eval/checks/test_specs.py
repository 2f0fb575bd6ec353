"""`--judge SPEC` becomes a judge, or a one-line error naming the spec and what is wrong."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fakes.judges import BiasedJudge, SteadyJudge
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.specs import resolve

ROOT = Path(__file__).resolve().parents[3]


def test_the_built_in_fakes_are_marked_as_fakes():
    biased, steady = resolve("biased"), resolve("steady")
    assert (type(biased.judge), biased.name, biased.fake) == (BiasedJudge, "biased", True)
    assert (type(steady.judge), steady.name, steady.fake) == (SteadyJudge, "steady", True)


@pytest.mark.parametrize(
    ("spec", "slot", "chars"),
    [
        ("fakes.judges:favours_second_slot", "second", 40),  # a factory
        ("fakes.judges:BiasedJudge", "first", 40),  # a class
    ],
)
def test_a_plugged_in_judge_is_built_and_not_taken_for_a_fake(spec, slot, chars):
    choice = resolve(spec)
    judge = choice.judge
    assert isinstance(judge, BiasedJudge)
    assert (judge.slot, judge.chars_per_point) == (slot, chars)
    assert (choice.name, choice.fake) == (spec, False)


def test_an_object_with_the_methods_is_used_as_it_is():
    choice = resolve("stages.s08_eval.checks.test_specs:READY_MADE")
    assert choice.judge is READY_MADE


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
    assert choice.judge is CALLABLE_JUDGE


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
