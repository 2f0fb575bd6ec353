"""`--judge SPEC` becomes a judge, or a one-line error naming the spec and what is wrong."""

import json
import os
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from fakes.judges import BiasedJudge, HangingJudge, RateLimitedJudge, SteadyJudge
from stages.s01_model.errors import CourseInputError
from stages.s06_resilience.guard import Guard, GuardedJudge
from stages.s08_eval import specs
from stages.s08_eval.judge import Unreachable, read_comparison, read_score
from stages.s08_eval.levels import Level, State
from stages.s08_eval.report import evaluation
from stages.s08_eval.specs import PLUG_IN, resolve

ROOT = Path(__file__).resolve().parents[3]


def guarded(choice):
    """The guard a plug-in is asked behind."""
    assert isinstance(choice.judge, GuardedJudge)
    return choice.judge


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
    judge = guarded(choice).judge
    assert isinstance(judge, BiasedJudge)
    assert (judge.slot, judge.chars_per_point) == (slot, chars)
    assert (choice.name, choice.fake) == (spec, False)


def test_an_object_with_the_methods_is_used_as_it_is():
    choice = resolve("stages.s08_eval.checks.test_specs:READY_MADE")
    assert guarded(choice).judge is READY_MADE  # behind the guard, as it is


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


def test_a_plug_in_is_asked_behind_the_guard_with_its_defaults_and_a_fake_directly():
    plug_in = guarded(resolve("fakes.judges:SteadyJudge"))
    assert isinstance(plug_in.judge, SteadyJudge)
    # stage 6's 30 s a call and its two ways of being gone, with stage 8's third; lines, not a
    # live line, since nothing here ends one; and no option sets the limit
    dead = (TimeoutError, ConnectionRefusedError, Unreachable)
    assert plug_in.guard == Guard(30.0, dead, False, "") == PLUG_IN
    assert type(resolve("biased").judge) is BiasedJudge  # instant and in process: no thread
    assert guarded(resolve("fakes.judges:SteadyJudge", Guard(0.5))).guard == Guard(0.5)


QUICK = replace(PLUG_IN, timeout_s=0.2)  # a judge that hangs is given up on in 0.6 s


def within(seconds, work):
    """What `work()` returns, or a failure once `seconds` have passed: a safety net, several
    times the time expected, so that a judge nothing stops fails the check instead of hanging
    it. Its own thread, not stage 6's time limit: the net must not be the thing it tests."""
    done = {}

    def run():
        try:
            done["value"] = work()
        except BaseException as error:  # handed over below
            done["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still waiting after {seconds} s: nothing stopped the judge"
    if "error" in done:
        raise done["error"]
    return done["value"]


@pytest.mark.failure_mode
def test_a_plug_in_that_hangs_is_read_as_unavailable_and_asked_three_times_only():
    judge = guarded(resolve("fakes.judges:HangingJudge", QUICK))
    before = HangingJudge.calls
    scored = within(10, lambda: [read_score(judge, "t", str(n), "r") for n in range(5)])
    readings = [*scored, read_comparison(judge, "t", "a", "b")]
    assert HangingJudge.calls - before == 3  # the breaker's three; the rest refused unasked
    assert [r.value for r in readings] == [None] * 6
    assert [r.reason.split(":")[1] for r in readings] == (
        [" TimeoutError"] * 2 + [" InstrumentDown"] * 4
    )
    assert readings[0].reason == "judge unavailable: TimeoutError: no answer within 0.2 s"


def test_a_busy_plug_in_is_not_a_dead_one_and_an_unreachable_one_is():
    busy = guarded(resolve("fakes.judges:RateLimitedJudge", QUICK))
    readings = [read_score(busy, "t", "a", "r") for _ in range(6)]  # twice the breaker's three
    assert all(r.reason.startswith("judge unavailable: RateLimited: 429") for r in readings)
    assert busy.down() is None and isinstance(busy.judge, RateLimitedJudge)
    gone = guarded(resolve("stages.s08_eval.checks.test_specs:NO_SUCH_HOST", QUICK))
    readings = [read_score(gone, "t", "a", "r") for _ in range(4)]
    assert [r.reason.split(":")[1] for r in readings] == [" Unreachable"] * 2 + [
        " InstrumentDown"
    ] * 2
    assert str(gone.down()).startswith("unavailable after 3 failed calls in a row (Unreachable")


class NoSuchHost:
    """A judge whose server cannot be found: every call fails before it is sent."""

    def score(self, task, answer, reference):
        raise Unreachable("cannot connect to judge.invalid: unknown host")

    compare = score


NO_SUCH_HOST = NoSuchHost()


@pytest.mark.failure_mode
def test_a_plug_in_that_hangs_leaves_every_case_unscored_and_the_run_not_successful(runs):
    chosen = resolve("fakes.judges:HangingJudge", QUICK)
    before = HangingJudge.calls
    report = within(20, lambda: evaluation(list(runs.values()), chosen, resolve("steady")))
    assert HangingJudge.calls - before == 3  # then the breaker opened: nothing more was asked
    judged = [row["levels"][Level.END_TO_END] for row in report.results]
    # 24 cases: 22 answered, each asked and read as unavailable; 2 with no answer to grade
    assert [v["state"] for v in judged] == [State.UNSCORED] * 24
    reasons = [v["reason"] for v in judged]
    assert sum(r.startswith("judge unavailable: ") for r in reasons) == 22
    assert reasons.count("no answer in the trace") == 2
    assert report.not_successful == [
        "no case could be judged (24 unscored)",
        "position bias (judge) not evaluated",
        "length bias (judge) not evaluated",
    ]


@pytest.mark.failure_mode
def test_the_command_with_a_plug_in_that_hangs_ends_not_successful(cli, monkeypatch, tmp_path):
    # the command's own resolve, with only the default time limit shortened
    monkeypatch.setattr(specs, "PLUG_IN", QUICK)
    out, before = tmp_path / "r.json", HangingJudge.calls
    hangs = ["--judge", "fakes.judges:HangingJudge", "--out", str(out)]
    result = within(20, lambda: cli("stages.s08_eval", *hangs))
    assert (result.returncode, HangingJudge.calls - before) == (1, 3)
    assert result.stdout.splitlines()[1] == (
        "RUN IS NOT SUCCESSFUL: no case could be judged (24 unscored)"
    )
    assert result.stderr.splitlines()[-1] == (
        "error: run is not successful: no case could be judged (24 unscored) "
        "(and 2 more in the report)"
    )
    report = json.loads(out.read_text())
    assert report["levels"]["end_to_end"]["unscored"] == 24
