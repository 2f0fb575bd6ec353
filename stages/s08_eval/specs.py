"""Which judge to use, from a command-line SPEC: a built-in fake (`biased`, the default, or
`steady`), or `module.path:attribute`, any object with `score` and `compare`, or a class or
zero-argument factory that returns one (e.g. fakes.judges:favours_second_slot).

A plug-in may hang, so it is asked behind stage 6's guard: a time limit on every call, and
a breaker that stops asking after a few time-outs. The fakes answer at once: asked directly.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass

from fakes.judges import BiasedJudge, SteadyJudge
from stages.s01_model.errors import CourseInputError
from stages.s06_resilience.guard import DEAD, Guard, GuardedJudge
from stages.s08_eval.judge import Judge, Unreachable

SPECS = "biased (default), steady, module.path:attribute"  # what --judge takes, for its help
BUILT_IN = {"biased": BiasedJudge, "steady": SteadyJudge}
PLUG_IN = Guard(dead=(*DEAD, Unreachable))  # no connection at all: as gone as a time-out


@dataclass(frozen=True)
class JudgeChoice:
    judge: Judge
    name: str
    fake: bool  # a built-in fake: deterministic by construction, so repeat checks can run


def resolve(spec: str, guard: Guard | None = None) -> JudgeChoice:
    """The judge a SPEC names, a plug-in behind `guard` (None: PLUG_IN, stage 6's defaults);
    a spec that names none is a one-line CourseInputError."""
    if spec in BUILT_IN:
        return JudgeChoice(BUILT_IN[spec](), spec, fake=True)
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:  # no colon leaves no attribute
        raise refused(spec, "expected biased, steady or module.path:attribute")
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # a missing module, a syntax error, an exception at import
        raise refused(spec, f"cannot import {module_name!r}", error) from None
    if not hasattr(module, attribute):
        raise refused(spec, f"{module_name} has no attribute {attribute!r}")
    found = getattr(module, attribute)
    if inspect.isclass(found) or (callable(found) and not hasattr(found, "score")):
        try:
            found = found()
        except Exception as error:  # it needs arguments, or it failed while making the judge
            raise refused(spec, "calling it with no arguments failed", error) from None
    missing = [name for name in ("score", "compare") if not callable(getattr(found, name, None))]
    if missing:
        needs = "a judge needs score(task, answer, reference) and compare(task, first, second)"
        raise refused(spec, f"{type(found).__name__} has no {' or '.join(missing)} method; {needs}")
    return JudgeChoice(GuardedJudge(found, spec, guard or PLUG_IN), spec, fake=False)


def refused(spec: str, problem: str, error: BaseException | None = None) -> CourseInputError:
    """One line naming the SPEC, the problem, and the exception behind it (its type and message)."""
    because = "" if error is None else ": " + " ".join(f"{type(error).__name__}: {error}".split())
    return CourseInputError(f"--judge {spec!r}: {problem}{because}")
