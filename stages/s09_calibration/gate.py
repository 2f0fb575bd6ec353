"""The calibration gate: three rules a judge must pass before its scores gate a release."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import load_toml

GATE_FILE = Path(__file__).resolve().parent / "gate.toml"
RULES = {"fail_on_verbosity_bias": bool, "max_flip_rate": float, "min_kappa": float}


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
    """Each rule with its measured value, its limit, and whether it passed."""
    verbosity, calibration = measured["verbosity"], measured["calibration"]
    n = verbosity["n"]
    flip_rate = verbosity["flips"] / n if n else 1.0  # nothing measured cannot pass
    kappa = calibration["kappa"]
    biased = verbosity["excludes_zero"]
    return [
        Rule(
            "verbosity interval excludes zero",
            "yes" if biased else "no",
            "must not" if config["fail_on_verbosity_bias"] else "(not enforced)",
            not (biased and config["fail_on_verbosity_bias"]),
        ),
        Rule(
            "flip rate",
            f"{flip_rate:.2f} ({verbosity['flips']} of {n})",
            f"at most {config['max_flip_rate']:.2f}",
            flip_rate <= config["max_flip_rate"],
        ),
        Rule(
            "kappa against people",
            "undefined" if kappa is None else f"{kappa:.2f}",
            f"at least {config['min_kappa']:.2f}",
            kappa is not None and kappa >= config["min_kappa"],
        ),
    ]
