"""The calibration gate: three rules a judge must pass before its scores gate a release.

The thresholds, and what each one means, are in gate.toml; a copy with other values is
passed with --config FILE. A rule whose measure is not evaluated fails, unless it is
switched off: a check that could not be made has not been passed.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import get_type_hints

from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import load_toml
from stages.s08_eval.findings import Finding
from stages.s09_calibration.measures import TwinShift
from stages.s10_agreement.agreement import Trust

GATE_FILE = Path(__file__).resolve().parent / "gate.toml"
SHIFT, FLIPS, KAPPA = "verbosity interval excludes zero", "flip rate", "kappa against people"


@dataclass(frozen=True)
class Thresholds:
    fail_on_verbosity_bias: bool
    max_flip_rate: float
    min_kappa: float


@dataclass(frozen=True)
class Rule:
    name: str
    value: str  # what was measured, as printed
    limit: str
    passed: bool


def load_gate(path: Path = GATE_FILE, kind: type[Thresholds] = Thresholds) -> Thresholds:
    """The thresholds (a later stage's `kind` adds its own); an error names the file."""
    config, kinds = load_toml(path), get_type_hints(kind)
    if unknown := sorted(set(config) - set(kinds)):
        raise CourseInputError(f"{path}: unknown setting {unknown[0]!r}; known: {', '.join(kinds)}")
    for name, wanted in kinds.items():
        value = config.setdefault(name, getattr(kind, name, None))  # a default where it has one
        if wanted is float and isinstance(value, int) and not isinstance(value, bool):
            config[name] = value = float(value)  # a whole number where a fraction is expected
        if not isinstance(value, wanted):
            got = "nothing (it is missing)" if value is None else repr(value)  # TOML has no null
            raise CourseInputError(f"{path}: {name} must be {wanted.__name__}, got {got}")
    return kind(**{f.name: config[f.name] for f in fields(kind)})


def judge_gate(verbosity: TwinShift, calibration: Trust, limits: Thresholds) -> list[Rule]:
    """Each rule with its measured value, its limit, and whether it passed."""
    rules, kappa = twin_rules(verbosity, limits), calibration.kappa
    at_least = f"at least {limits.min_kappa:.2f}"
    if calibration.state == Finding.NOT_EVALUATED or kappa is None:
        why = f"not evaluated ({calibration.outcome.reason})"
        return [*rules, Rule(KAPPA, why, at_least, False)]
    return [*rules, Rule(KAPPA, f"{kappa:.2f}", at_least, kappa >= limits.min_kappa)]


def twin_rules(verbosity: TwinShift, limits: Thresholds) -> list[Rule]:
    """The two rules read from the twins: the verbosity shift and the flip rate."""
    must = "must not" if (enforced := limits.fail_on_verbosity_bias) else "(not enforced)"
    at_most = f"at most {limits.max_flip_rate:.2f}"
    if verbosity.state == Finding.NOT_EVALUATED:
        why = f"not evaluated ({verbosity.outcome.reason})"
        return [Rule(SHIFT, why, must, not enforced), Rule(FLIPS, why, at_most, False)]
    found = verbosity.state == Finding.FOUND
    rate, flipped = verbosity.flips / verbosity.n, f"({verbosity.flips} of {verbosity.n})"
    return [
        Rule(SHIFT, "yes" if found else "no", must, not (found and enforced)),
        Rule(FLIPS, f"{rate:.2f} {flipped}", at_most, rate <= limits.max_flip_rate),
    ]
