"""Calibrating a judge: what it rewards besides quality, and how far it agrees with people.

Every measurement runs on the same judge with the same settings, and every text is scored
`repeats` times and averaged, so that sampling noise does not pass for bias.

    verbosity         padded twin minus original: a judge that pays for length scores it up
    concise           concise twin minus original: a judge that pays for volume scores it down
    pairwise          the two families' answers to a question, in both orders; a verdict
                      counts only when it survives the swap (two calls a pair)
    length_confound   correlation of score with length over originals and padded twins
    self_preference   score gap between the two families on pairs people rate equal, at
                      equal length (the intercept of gap against length difference)
    calibration       Cohen's kappa against the human pass/fail at the gate, and the cases
                      where judge and human disagree — the review queue
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stages.s08_eval.detectors import both_orders
from stages.s08_eval.judge import CountingJudge, parse_score, read
from stages.s09_calibration.calibration import GATE, CalCase, Twins
from stages.s09_calibration.rubrics import Rubric, prompt
from stages.s09_calibration.stats import (
    TRUSTWORTHY,
    bootstrap_ci,
    cohen_kappa,
    excludes_zero,
    flips,
    intercept,
    intercept_ci,
    mean,
    pearson,
    share_higher,
    spearman,
)
from stages.s09_calibration.structured import json_reason, parse_json_score

REPEATS = 3
SEED = 9


@dataclass
class Scorer:
    """Scores a text `repeats` times with one judge and averages the replies that parsed."""

    judge: CountingJudge
    repeats: int = REPEATS
    reply: str = "bare"  # "bare": a bare integer; "json": {"score": int, "reason": str}
    rubric: str = Rubric.OPEN
    unscored: list[str] = field(default_factory=list)  # one reason per unusable reply
    reasons: dict[str, str] = field(default_factory=dict)  # the judge's own, from JSON

    def mean_score(self, case: CalCase, text: str) -> float | None:
        parse = parse_json_score if self.reply == "json" else parse_score
        task = prompt(self.rubric, case.question, case.facts)
        values = []
        for _ in range(self.repeats):
            reading = read(
                lambda: self.judge.score(task, text, case.reference), parse
            )  # fmt: skip
            if reading.value is None:
                self.unscored.append(f"{case.id}: {reading.reason}")
                continue
            values.append(float(reading.value))
            reason = json_reason(reading.raw)
            if reason is not None and text == case.answer:
                self.reasons[case.id] = reason
        return mean(values)


def twin_shift(
    cases: list[CalCase], originals: dict[str, float | None], twins: dict[str, float | None],
    repeats: int, seed: int,
) -> dict[str, Any]:  # fmt: skip
    """How twins score against their originals: the shift, its interval, flips at the gate."""
    scored = [c.id for c in cases if originals[c.id] is not None and twins[c.id] is not None]
    deltas = [float(twins[i] or 0) - float(originals[i] or 0) for i in scored]
    interval = bootstrap_ci(deltas, seed)
    return {
        "n": len(scored),
        "repeats": repeats,
        "mean_delta": mean(deltas),
        "ci": list(interval) if interval else None,
        "share_higher": share_higher(deltas),
        "flips": flips(
            [float(originals[i] or 0) >= GATE for i in scored],
            [float(twins[i] or 0) >= GATE for i in scored],
        ),
        "excludes_zero": excludes_zero(interval),
    }


def verbosity_bias(shift: dict[str, Any]) -> str:
    if not shift["excludes_zero"]:
        return "none"
    return "longer scores higher" if shift["ci"][0] > 0 else "longer scores lower"


def concise_bias(shift: dict[str, Any]) -> str:
    if not shift["excludes_zero"]:
        return "none"
    return "rewards thoroughness by volume" if shift["ci"][1] < 0 else "rewards brevity"


def families(cases: list[CalCase]) -> list[tuple[CalCase, CalCase]]:
    """The (bullets, prose) answers to the same question."""
    by_pair: dict[str, dict[str, CalCase]] = {}
    for case in cases:
        by_pair.setdefault(case.pair, {})[case.family] = case
    return [
        (members["bullets"], members["prose"])
        for members in by_pair.values()
        if "bullets" in members and "prose" in members
    ]


def pairwise(judge: CountingJudge, cases: list[CalCase]) -> dict[str, Any]:
    """Each pair of family answers compared in both orders; a verdict must survive the swap.

    Disagreement between the two orders is recorded as a tie: the judge preferred a slot,
    not an answer. Swap consistency is the share of pairs whose verdict survived.
    """
    counts = {"bullets": 0, "prose": 0, "tie": 0}
    consistent = 0
    pairs = families(cases)
    for bullets, prose in pairs:
        won_ab, won_ba = both_orders(judge, bullets.question, bullets.answer, prose.answer)
        survived = won_ab is not None and won_ab == won_ba
        consistent += survived
        winner = won_ab if survived and won_ab else "tie"
        counts[{"a": "bullets", "b": "prose", "tie": "tie"}[winner]] += 1
    return {
        **counts,
        "pairs": len(pairs),
        "calls": 2 * len(pairs),
        "swap_consistency": consistent / len(pairs) if pairs else None,
    }


def self_preference(
    cases: list[CalCase], scores: dict[str, float | None], seed: int
) -> dict[str, Any]:
    """Bullets-minus-prose score gap on pairs people rate equal, controlled for length."""
    gaps, length_gaps = [], []
    for bullets, prose in families(cases):
        if bullets.human_score != prose.human_score:
            continue
        if scores[bullets.id] is None or scores[prose.id] is None:
            continue
        gaps.append(float(scores[bullets.id] or 0) - float(scores[prose.id] or 0))
        length_gaps.append(float(len(bullets.answer) - len(prose.answer)))
    gap = intercept(length_gaps, gaps)
    interval = intercept_ci(length_gaps, gaps, seed)
    found = excludes_zero(interval)
    favoured = "bullets" if (gap or 0) > 0 else "prose"
    recommendation = (
        f"it scores {favoured} answers {abs(gap or 0):.1f} points higher than equal ones: "
        f"use a judge from another family, or discount its {favoured} scores by {abs(gap or 0):.1f}"
        if found
        else "no preference for either family's style at equal quality and length"
    )
    return {
        "pairs": len(gaps),
        "gap": gap,
        "ci": list(interval) if interval else None,
        "found": found,
        "recommendation": recommendation,
    }


def agreement(
    cases: list[CalCase], scores: dict[str, float | None], reasons: dict[str, str] | None = None
) -> dict[str, Any]:
    """Kappa against the human pass/fail, and the disagreements for a person to review."""
    scored = [c for c in cases if scores[c.id] is not None]
    judge_pass = [float(scores[c.id] or 0) >= GATE for c in scored]
    result = cohen_kappa([c.human_pass for c in scored], judge_pass)
    queue = [
        {
            "id": case.id,
            "question": case.question,
            "answer": case.answer,
            "human_score": case.human_score,
            "human_pass": case.human_pass,
            "judge_score": scores[case.id],
            "disagreement": "the judge passes what a person failed"
            if passed
            else "the judge fails what a person passed",
            "reason": (reasons or {}).get(case.id),  # the judge's own words, when it gave any
        }
        for case, passed in zip(scored, judge_pass, strict=True)
        if passed != case.human_pass
    ]
    return {
        "kappa": result.kappa,
        "observed": result.observed,
        "expected": result.expected,
        "trustworthy": result.kappa is not None and result.kappa >= TRUSTWORTHY,
        "disagreements": len(queue),
        "scored": len(scored),
        "queue": queue,
    }


def calibrate(
    judge: CountingJudge,
    cases: list[CalCase],
    twins: dict[str, Twins],
    *,
    repeats: int = REPEATS,
    seed: int = SEED,
    reply: str = "bare",
    rubric: str = Rubric.OPEN,
) -> dict[str, Any]:
    """Every measurement of one judge, as a plain dict."""
    scorer = Scorer(judge, repeats, reply, rubric=rubric)
    originals = {c.id: scorer.mean_score(c, c.answer) for c in cases}
    padded = {c.id: scorer.mean_score(c, twins[c.id].padded) for c in cases}
    concise = {c.id: scorer.mean_score(c, twins[c.id].concise) for c in cases}
    verbosity = twin_shift(cases, originals, padded, repeats, seed)
    verbosity["bias"] = verbosity_bias(verbosity)
    shorter = twin_shift(cases, originals, concise, repeats, seed)
    shorter["bias"] = concise_bias(shorter)
    lengths = [len(c.answer) for c in cases] + [len(twins[c.id].padded) for c in cases]
    both = [originals[c.id] for c in cases] + [padded[c.id] for c in cases]
    pairs = [(x, y) for x, y in zip(lengths, both, strict=True) if y is not None]
    compared = pairwise(judge, cases)
    return {
        "verbosity": verbosity,
        "concise": shorter,
        "pairwise": compared,
        "length_confound": {
            "pearson": pearson([p[0] for p in pairs], [float(p[1]) for p in pairs]),
            "spearman": spearman([p[0] for p in pairs], [float(p[1]) for p in pairs]),
        },
        "self_preference": self_preference(cases, originals, seed),
        "calibration": agreement(cases, originals, scorer.reasons),
        "unscored": len(scorer.unscored),
        "judge": {"name": judge.name, "calls": judge.calls},
        # the measured points behind the summaries, for plots and for anyone re-checking them
        "series": {
            "original": [[len(c.answer), originals[c.id]] for c in cases],
            "padded": [[len(twins[c.id].padded), padded[c.id]] for c in cases],
            "human_pass": [c.human_pass for c in cases],
        },
    }


def rubric_change(open_run: dict[str, Any], facts_run: dict[str, Any]) -> dict[str, Any]:
    """The same measurements before (open rubric) and after (facts checklist) the change."""

    def headline(run: dict[str, Any]) -> dict[str, Any]:
        verbosity, calibration = run["verbosity"], run["calibration"]
        return {
            "verbosity_mean_delta": verbosity["mean_delta"],
            "verbosity_ci": verbosity["ci"],
            "verbosity_bias": verbosity["bias"],
            "flips": verbosity["flips"],
            "kappa": calibration["kappa"],
            "calls": run["judge"]["calls"],
        }

    return {"open": headline(open_run), "facts": headline(facts_run)}
