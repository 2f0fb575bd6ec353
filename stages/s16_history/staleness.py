"""The gate with a history: is the calibration on file about this judge, and does the judge
still measure as it did when it was first calibrated?

    same judge   the fingerprint, and the calibration set, equal those of the last
                 calibration; or, on the same set, two one-sided tests (stage 15) show this
                 run's agreement with people and its padded twins' gain, answer by answer,
                 within the gate's margins of that calibration's: "recalibrated and
                 equivalent". Else each difference is named ("model a → b"), and the
                 calibration is stale. The last *calibration*, not the newest record: a gate
                 run that failed is in the history too, and must not make its judge look
                 calibrated.
    kappa        its interval reaches the gate's minimum and the baseline's kappa: an
                 interval wholly below either is a regression, not noise.
    verbosity    its interval has not moved away from zero: it does not lie wholly beyond
                 the baseline's interval, on the far side from zero.
    flips        no larger a share than the threshold kept by the baseline.

The baseline is the first calibration of the judge as last calibrated (history.baseline).
A rule whose figure is missing, now or in the baseline, fails as not evaluated.
"""

from __future__ import annotations

from stages.s09_calibration.report import interval
from stages.s10_agreement.gate import Rule, Thresholds
from stages.s11_correction.certify import Certified
from stages.s15_versions.equivalence import Equivalence, tost
from stages.s16_history.history import baseline, calibrations
from stages.s16_history.records import Entry, Figures, Fingerprint, FlipThreshold

SAME, KAPPA, SHIFT, FLIPS = "same judge as calibrated", "kappa held", "verbosity held", "flips"
PARTS = ("model", "endpoint", "spec", "prompts", "rubric")  # named in this order


def changes(before: Fingerprint, after: Fingerprint) -> list[str]:
    """Each part of a fingerprint that differs, as "part old → new", the model first."""
    found = [f"{key} {getattr(before, key)} → {getattr(after, key)}" for key in PARTS
             if getattr(before, key) != getattr(after, key)]  # fmt: skip
    old, new = before.settings, after.settings
    found += [f"{key} {old.get(key)!r} → {new.get(key)!r}" for key in sorted(set(old) | set(new))
              if old.get(key) != new.get(key)]  # fmt: skip
    return found


def same_judge(calibrated: Entry, now: Entry, limits: Certified) -> Rule:
    differ, limit = changes(calibrated.fingerprint, now.fingerprint), "as last calibrated"
    differ += ["calibration set changed"] * (calibrated.calibration_set != now.calibration_set)
    if not differ:
        return Rule(SAME, f"the judge calibrated {calibrated.when}", limit, True)
    found = equivalence(calibrated, now, limits)
    tests = found if isinstance(found, str) else "; ".join(t.said(n) for n, t in found.items())
    said = "; ".join([*differ, tests])
    if isinstance(found, str) or not all(test.equivalent for test in found.values()):
        return Rule(SAME, f"calibration stale: {said}; recalibrate", limit, False)
    return Rule(SAME, f"recalibrated and equivalent: {said}", limit, True)


def equivalence(old: Entry, new: Entry, limits: Certified) -> dict[str, Equivalence] | str:
    """Each TOST of the two runs, answer by answer; or why these answers cannot show it."""
    if old.calibration_set != new.calibration_set:
        return "other answers: nothing to pair"
    found, tests = {}, {"agreement with people": ("agreed", limits.equivalent_agreement),
                        "padded twins' gain": ("shifts", limits.equivalent_verbosity)}  # fmt: skip
    for name, (field, margin) in tests.items():
        before, after = getattr(old.figures, field), getattr(new.figures, field)
        if not before or len(before) != len(after):
            return "the calibration on file has no figures answer by answer to compare"
        paired = [b - a for a, b in zip(before, after, strict=True) if None not in (a, b)]
        if (test := tost(paired, margin)) is None:
            return f"{len(paired)} answers scored by both cannot show the {name} equivalent"
        found[name] = test
    return found


def kappa_held(first: Figures, now: Figures, limits: Thresholds) -> Rule:
    ci, then = now.kappa_ci, first.kappa
    if ci is None or then is None:
        return Rule(KAPPA, "not evaluated (no kappa interval, now or in the baseline)", "", False)
    limit = f"reaches the gate's {limits.min_kappa:.2f} and the baseline's {then:.2f}"
    below = [name for name, bar in (("the gate", limits.min_kappa), ("the baseline", then))
             if ci[1] < bar]  # fmt: skip
    value = f"{interval(ci)}" + (f", wholly below {' and '.join(below)}" if below else "")
    return Rule(KAPPA, value, limit, not below)


def moved_away(first: tuple[float, float], now: tuple[float, float]) -> bool:
    """Whether `now` lies wholly beyond `first`, on the far side from zero."""
    return now[0] > max(first[1], 0) or now[1] < min(first[0], 0)


def verbosity_held(first: Figures, now: Figures) -> Rule:
    ci, then = now.verbosity_ci, first.verbosity_ci
    if ci is None or then is None:
        why = "not evaluated (no verbosity interval, now or in the baseline)"
        return Rule(SHIFT, why, "", False)
    away = moved_away(then, ci)
    value = f"{interval(ci)}{', moved away from zero' if away else ''}"
    return Rule(SHIFT, value, f"not wholly beyond the baseline's {interval(then)}", not away)


def flips_held(kept: FlipThreshold | None, now: Figures) -> Rule:
    """`kept`: the baseline's threshold, None when it has none."""
    threshold = kept or FlipThreshold(None, "not recorded in the baseline")
    flips, of, share = now.flips, now.of, threshold.share
    if share is None:
        return Rule(FLIPS, f"not evaluated (threshold {threshold.how})", "", False)
    if flips is None or not of:
        return Rule(FLIPS, "not evaluated (no flips measured in this run)", "", False)
    limit = f"at most {share:.2f}, {threshold.how}"
    return Rule(FLIPS, f"{flips / of:.2f} ({flips} of {of})", limit, flips / of <= share)


def history_rules(records: list[Entry], now: Entry, limits: Certified) -> list[Rule]:
    """The history's rules for the run `now` (not yet in `records`)."""
    start = baseline(records)
    if start is None:
        why = "not evaluated (no calibration in the history: run calibrate --history first)"
        return [Rule(name, why, "", False) for name in (SAME, KAPPA, SHIFT, FLIPS)]
    first, figures = start.figures, now.figures
    return [
        same_judge(calibrations(records)[-1], now, limits),
        kappa_held(first, figures, limits),
        verbosity_held(first, figures),
        flips_held(start.flip_threshold, figures),
    ]
