"""Calibrating a judge: what it rewards besides quality, and how far it agrees with people.

Every measurement runs on the same judge with the same settings, and every text is scored
`repeats` times and averaged, so that sampling noise does not pass for bias. Each measure
looks for one flaw, and ends found, not found or not evaluated (stage 8's findings.py: too
little usable data is never "none"):

    verbosity         padded twin minus original; found when the interval excludes zero
    concise           concise twin minus original; found when the interval excludes zero
    pairwise          the two families' answers in both orders (two calls a pair); found
                      when a verdict does not survive the swap
    length_confound   Spearman's rho of score with length over originals and padded twins;
                      found when its interval excludes zero
    self_preference   score gap between the two families on pairs people rate equal, at
                      equal length (the intercept of gap against length difference); found
                      when its interval excludes zero
    calibration       Cohen's kappa against the human pass/fail at the gate; found (NOT
                      trustworthy) below 0.6. The disagreements are the review queue.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from stages.s08_eval.detectors import Swap, both_orders
from stages.s08_eval.findings import Evidence, Finding, Outcome, decide
from stages.s08_eval.judge import CountingJudge, Reading, parse_score, read
from stages.s09_calibration.calibration import GATE, CalCase, Twins
from stages.s09_calibration.rubrics import Rubric, prompt
from stages.s09_calibration.stats import (
    TRUSTWORTHY,
    Agreement,
    bootstrap_ci,
    cohen_kappa,
    correlation_ci,
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
UNDEFINED_KAPPA = "kappa is undefined: the judge and the people each used one label only"
UNDEFINED_RHO = "the correlation is undefined: fewer than 4 points, or lengths that never vary"
# A twin shift's verdict: (twins score higher, twins score lower, no shift)
VERBOSITY = ("longer scores higher", "longer scores lower", "no shift")
CONCISE = ("rewards brevity", "rewards thoroughness by volume", "no shift")
MEASURES = ("verbosity", "concise", "pairwise", "length_confound", "self_preference", "calibration")


@dataclass
class Scorer:
    """Puts every question to one judge and keeps count of the replies that were unusable.

    A text is scored `repeats` times and the replies that parsed are averaged.
    """

    judge: CountingJudge
    repeats: int = REPEATS
    reply: str = "bare"  # "bare": a bare integer; "json": {"score": int, "reason": str}
    rubric: str = Rubric.OPEN
    unscored: list[Reading] = field(default_factory=list)  # every reply that was unusable
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
                self.unscored.append(reading)
                continue
            values.append(float(reading.value))
            reason = json_reason(reading.raw)
            if reason is not None and text == case.answer:
                self.reasons[case.id] = reason
        return mean(values)

    def both_orders(self, task: str, a: str, b: str) -> Swap:
        swap = both_orders(self.judge, task, a, b)
        self.unscored.extend(swap.unscored)  # an unreadable verdict is unscored, not a tie
        return swap


def measured(outcome: Outcome, verdict: str, **figures: Any) -> dict[str, Any]:
    """A measure as the report holds it: its state and counts, its verdict, its figures.

    The verdict is the measure's conclusion in words, and None when it is not evaluated.
    """
    evaluated = outcome.state != Finding.NOT_EVALUATED
    return {**outcome.fields(), "verdict": verdict if evaluated else None, **figures}


def twin_shift(
    cases: list[CalCase], originals: dict[str, float | None], twins: dict[str, float | None],
    repeats: int, seed: int, words: tuple[str, str, str],
) -> dict[str, Any]:  # fmt: skip
    """How twins score against their originals: the shift, its interval, flips at the gate.

    `words` name the verdict: (twins score higher, twins score lower, no shift).
    """
    pairs = [
        (original, twin)
        for c in cases
        if (original := originals[c.id]) is not None and (twin := twins[c.id]) is not None
    ]
    deltas = [twin - original for original, twin in pairs]
    interval = bootstrap_ci(deltas, seed)
    outcome = decide(Evidence(len(pairs), len(cases)), excludes_zero(interval))
    higher, lower, same = words
    verdict = same
    if outcome.state == Finding.FOUND and interval is not None:
        verdict = higher if interval[0] > 0 else lower
    return measured(
        outcome,
        verdict,
        n=len(pairs),
        repeats=repeats,
        mean_delta=mean(deltas),
        ci=list(interval) if interval else None,
        share_higher=share_higher(deltas),
        flips=flips([o >= GATE for o, _ in pairs], [t >= GATE for _, t in pairs]),
    )


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


def pairwise(scorer: Scorer, cases: list[CalCase]) -> dict[str, Any]:
    """Each pair of family answers compared in both orders; a verdict must survive the swap.

    A pair whose reply could not be read in either order is unscored: it says nothing and is
    left out. Of the rest, disagreement between the two orders is recorded as a tie (the
    judge preferred a slot, not an answer), and is the flaw this measure looks for. Swap
    consistency is the share of usable pairs whose verdict survived.
    """
    counts = {"bullets": 0, "prose": 0, "tie": 0}
    consistent = 0
    pairs = families(cases)
    for bullets, prose in pairs:
        swap = scorer.both_orders(bullets.question, bullets.answer, prose.answer)
        if not swap.usable:
            continue
        survived = swap.ab == swap.ba
        consistent += survived
        winner = swap.ab if survived and swap.ab else "tie"
        counts[{"a": "bullets", "b": "prose", "tie": "tie"}[winner]] += 1
    usable = sum(counts.values())
    outcome = decide(Evidence(usable, len(pairs)), consistent < usable)
    verdict = (
        f"prefers a slot: {usable - consistent} of {usable} verdicts change with the order"
        if outcome.state == Finding.FOUND
        else "every verdict survives the swap"
    )
    return measured(
        outcome,
        verdict,
        **counts,
        pairs=len(pairs),
        calls=2 * len(pairs),
        swap_consistency=consistent / usable if usable else None,
    )


def self_preference(
    cases: list[CalCase], scores: dict[str, float | None], seed: int
) -> dict[str, Any]:
    """Bullets-minus-prose score gap on pairs people rate equal, controlled for length."""
    equal = [(b, p) for b, p in families(cases) if b.human_score == p.human_score]
    gaps, length_gaps = [], []
    for bullets, prose in equal:
        first, second = scores[bullets.id], scores[prose.id]
        if first is None or second is None:
            continue
        gaps.append(first - second)
        length_gaps.append(float(len(bullets.answer) - len(prose.answer)))
    gap = intercept(length_gaps, gaps)
    interval = intercept_ci(length_gaps, gaps, seed)
    outcome = decide(Evidence(len(gaps), len(equal)), excludes_zero(interval))
    verdict = "no preference for either family's style at equal quality and length"
    if outcome.state == Finding.FOUND and gap is not None:
        favoured = "bullets" if gap > 0 else "prose"
        verdict = (
            f"it scores {favoured} answers {abs(gap):.1f} points higher than equal ones: use a "
            f"judge from another family, or discount its {favoured} scores by {abs(gap):.1f}"
        )
    return measured(
        outcome, verdict, pairs=len(gaps), gap=gap, ci=list(interval) if interval else None
    )


def length_confound(
    lengths: Sequence[float], scores: Sequence[float], evidence: Evidence
) -> dict[str, Any]:
    """Does the score follow the length? Spearman's rho with its interval, and Pearson's r.

    Found when the interval excludes zero. Over a set whose long answers are also its wrong
    ones this mixes length with quality: only twins separate the two.
    """
    rho = spearman(lengths, scores)
    interval = correlation_ci(rho, len(scores))
    if len(set(scores)) == 1 and len(set(lengths)) > 1:
        # one score for every length: no correlation is defined, and none is needed
        outcome = decide(evidence, False)
        verdict = "the score never varies, so it cannot follow the length"
    else:
        found = None if interval is None else excludes_zero(interval)
        outcome = decide(evidence, found, UNDEFINED_RHO)
        verdict = "the score does not follow the length"
    if outcome.state == Finding.FOUND and interval is not None:
        verdict = f"longer answers score {'higher' if interval[0] > 0 else 'lower'}"
    return measured(
        outcome,
        verdict,
        spearman=rho,
        ci=list(interval) if interval else None,
        pearson=pearson(lengths, scores),
    )


def trust(result: Agreement, evidence: Evidence) -> dict[str, Any]:
    """Kappa against the people, read at the bar: below TRUSTWORTHY is the flaw found."""
    below = None if result.kappa is None else result.kappa < TRUSTWORTHY
    outcome = decide(evidence, below, UNDEFINED_KAPPA)
    return measured(
        outcome,
        "NOT trustworthy" if below else "trustworthy",
        kappa=result.kappa,
        observed=result.observed,
        expected=result.expected,
        trustworthy=None if outcome.state == Finding.NOT_EVALUATED else not below,
    )


def agreement(
    cases: list[CalCase], scores: dict[str, float | None], reasons: dict[str, str] | None = None
) -> dict[str, Any]:
    """Kappa against the human pass/fail, and the disagreements for a person to review."""
    scored = [(case, score) for case in cases if (score := scores[case.id]) is not None]
    judge_pass = [score >= GATE for _, score in scored]
    result = cohen_kappa([case.human_pass for case, _ in scored], judge_pass)
    queue = [
        {
            "id": case.id,
            "question": case.question,
            "answer": case.answer,
            "human_score": case.human_score,
            "human_pass": case.human_pass,
            "judge_score": score,
            "disagreement": "the judge passes what a person failed"
            if passed
            else "the judge fails what a person passed",
            "reason": (reasons or {}).get(case.id),  # the judge's own words, when it gave any
        }
        for (case, score), passed in zip(scored, judge_pass, strict=True)
        if passed != case.human_pass
    ]
    evidence = Evidence(len(scored), len(cases))
    return {
        **trust(result, evidence),
        "disagreements": len(queue),
        "scored": len(scored),
        "queue": queue,
    }


def unscored_summary(readings: list[Reading]) -> dict[str, Any]:
    """How many replies were unusable, why (most common first), and one of them as given.

    Reasons are grouped by their kind ("judge unavailable: TimeoutError"), not their detail.
    """
    why = Counter(": ".join(reading.reason.split(": ")[:2]) for reading in readings)
    example = next((reading.raw for reading in readings if reading.raw is not None), None)
    return {"count": len(readings), "reasons": dict(why.most_common()), "example": example}


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
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}: nothing would be scored")
    scorer = Scorer(judge, repeats, reply, rubric=rubric)
    originals = {c.id: scorer.mean_score(c, c.answer) for c in cases}
    padded = {c.id: scorer.mean_score(c, twins[c.id].padded) for c in cases}
    concise = {c.id: scorer.mean_score(c, twins[c.id].concise) for c in cases}
    verbosity = twin_shift(cases, originals, padded, repeats, seed, VERBOSITY)
    shorter = twin_shift(cases, originals, concise, repeats, seed, CONCISE)
    texts = [(len(c.answer), originals[c.id]) for c in cases]
    texts += [(len(twins[c.id].padded), padded[c.id]) for c in cases]
    points = [(length, score) for length, score in texts if score is not None]
    seen = Evidence(len(points), len(texts))
    compared = pairwise(scorer, cases)
    return {
        "verbosity": verbosity,
        "concise": shorter,
        "pairwise": compared,
        "length_confound": length_confound(
            [float(p[0]) for p in points], [p[1] for p in points], seen
        ),
        "self_preference": self_preference(cases, originals, seed),
        "calibration": agreement(cases, originals, scorer.reasons),
        "unscored": unscored_summary(scorer.unscored),
        "judge": {"name": judge.name, "calls": judge.calls},
        # the measured points behind the summaries, for plots and for anyone re-checking them
        "series": {
            "original": [[len(c.answer), originals[c.id]] for c in cases],
            "padded": [[len(twins[c.id].padded), padded[c.id]] for c in cases],
            "human_pass": [c.human_pass for c in cases],
        },
    }


def not_evaluated(run: dict[str, Any]) -> list[str]:
    """The measures of one run that had too little usable data to conclude anything."""
    return [name for name in MEASURES if run[name]["state"] == Finding.NOT_EVALUATED]


def failures(result: dict[str, Any]) -> list[str]:
    """Why a report cannot be read as a result; empty when it can.

    A judge that stopped being asked (stage 8's guard.py); a side with nothing evaluated; a
    side with some measures not evaluated; a rubric change that could not be compared.
    """
    found = []
    for side, run in (("judge", result), ("control", result["control"])):
        judge, missing = run["judge"], not_evaluated(run)
        if judge.get("unavailable"):
            found.append(f"{side} {judge['unavailable']}")
        if len(missing) == len(MEASURES):
            found.append(
                f"nothing was evaluated for the {side}: {run['unscored']['count']} of "
                f"{judge['calls']} replies unscored"
            )
        elif missing:
            names = ", ".join(name.replace("_", " ") for name in missing)
            found.append(f"not evaluated for the {side}: {names}")
    if result["rubric_change"]["state"] == Finding.NOT_EVALUATED:
        found.append(f"rubric change not evaluated: {result['rubric_change']['reason']}")
    return found


def rubric_change(open_run: dict[str, Any], facts_run: dict[str, Any]) -> dict[str, Any]:
    """The same measurements before (open rubric) and after (facts checklist) the change.

    Found when the change moved a verdict (of verbosity or of agreement with people); not
    evaluated when either is not evaluated on either side.
    """

    def headline(run: dict[str, Any]) -> dict[str, Any]:
        verbosity, calibration = run["verbosity"], run["calibration"]
        return {
            "verbosity_mean_delta": verbosity["mean_delta"],
            "verbosity_ci": verbosity["ci"],
            "verbosity_state": verbosity["state"],
            "verbosity_verdict": verbosity["verdict"],
            "flips": verbosity["flips"],
            "kappa": calibration["kappa"],
            "kappa_state": calibration["state"],
            "calls": run["judge"]["calls"],
        }

    before, after = headline(open_run), headline(facts_run)
    keys = ("verbosity_state", "kappa_state")
    # what it stands on: four verdicts, two measures before and after the change
    usable = sum(run[key] != Finding.NOT_EVALUATED for run in (before, after) for key in keys)
    moved = any(before[key] != after[key] for key in keys)
    evidence = Evidence(usable, 4)
    outcome = (
        Outcome(
            Finding.NOT_EVALUATED,
            f"a verdict it compares is not evaluated ({evidence.counts()})",
            evidence,
        )
        if usable < 4
        else Outcome(Finding.FOUND if moved else Finding.NOT_FOUND, "", evidence)
    )
    verdict = "the change moved a verdict" if moved else "no verdict moved"
    return {**measured(outcome, verdict), "open": before, "facts": after}
