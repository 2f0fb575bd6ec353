"""The calibration gate: three rules a judge must pass before its scores gate a release."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import load_toml
from stages.s08_eval.findings import Finding

GATE_FILE = Path(__file__).resolve().parent / "gate.toml"
RULES = {"fail_on_verbosity_bias": bool, "max_flip_rate": float, "min_kappa": float}
SHIFT, FLIPS, KAPPA = "verbosity interval excludes zero", "flip rate", "kappa against people"


@dataclass(frozen=True)
class Rule:
    name: str
    value: str
    limit: str
    passed: bool


def load_gate(path: Path = GATE_FILE) -> dict[str, Any]:
    """The thresholds; a missing, unknown or mistyped one is an error naming the file."""
    config = load_toml(path)
    unknown = sorted(set(config) - set(RULES))
    if unknown:
        raise CourseInputError(f"{path}: unknown setting {unknown[0]!r}; known: {', '.join(RULES)}")
    for name, kind in RULES.items():
        value = config.get(name)
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            config[name] = value = float(value)
        if not isinstance(value, kind):
            raise CourseInputError(f"{path}: {name} must be {kind.__name__}, got {value!r}")
    return config


def judge_gate(measured: dict[str, Any], config: dict[str, Any]) -> list[Rule]:
    """Each rule with its measured value, its limit, and whether it passed.

    A rule whose measure is not evaluated fails, unless it is switched off: a check that
    could not be made has not been passed.
    """
    verbosity, calibration = measured["verbosity"], measured["calibration"]
    enforced = config["fail_on_verbosity_bias"]
    must = "must not" if enforced else "(not enforced)"
    at_most = f"at most {config['max_flip_rate']:.2f}"
    at_least = f"at least {config['min_kappa']:.2f}"
    if verbosity["state"] == Finding.NOT_EVALUATED:
        why = f"not evaluated ({verbosity['reason']})"
        rules = [Rule(SHIFT, why, must, not enforced), Rule(FLIPS, why, at_most, False)]
    else:
        found = verbosity["state"] == Finding.FOUND
        rate = verbosity["flips"] / verbosity["n"]
        rules = [
            Rule(SHIFT, "yes" if found else "no", must, not (found and enforced)),
            Rule(FLIPS, f"{rate:.2f} ({verbosity['flips']} of {verbosity['n']})", at_most,
                 rate <= config["max_flip_rate"]),
        ]  # fmt: skip
    kappa = calibration["kappa"]
    if calibration["state"] == Finding.NOT_EVALUATED or kappa is None:
        rules.append(Rule(KAPPA, f"not evaluated ({calibration['reason']})", at_least, False))
    else:
        rules.append(Rule(KAPPA, f"{kappa:.2f}", at_least, kappa >= config["min_kappa"]))
    return rules
