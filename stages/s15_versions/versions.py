"""Your agent changed: two versions compared case by case, with the length held equal.

The "thorough" version is the stage-7 agent after a prompt change that asks it to be more
thorough: its model calls the same tools with the same arguments, and every final answer
gains an opening, its main sentence again and a closing, adding no fact (stage 9's check
holds every answer to that). Only the length moves. The demo's cases
(fixtures/versions_cases.json) are stage 8's, answered tersely: right, but short of the
reference, so that there is room for a score to rise.

Each case is paired with itself across the two versions (stage 8's reports, as written).
Three differences, each with a seeded bootstrap interval: the pass rate, the mean score, and
the score at equal length — the intercept of the score difference against the length
difference, read where the lengths are the same. It assumes the score moves in a straight
line with the length over the range the pairs cover, the same on every case; with pairs that
all grew by about the same amount it extrapolates, and its interval says how far. Trajectory
and component are checked, not judged: they must not move at all.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from fakes.padder import pieces
from stages.s01_model.cli import FIXTURES
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.cases import Case, load_cases, run_case
from stages.s08_eval.findings import Evidence, Finding, decide
from stages.s08_eval.judge import parse_score
from stages.s08_eval.levels import PASS_MARK
from stages.s08_eval.report import evaluation
from stages.s08_eval.specs import resolve
from stages.s09_calibration import stats
from stages.s09_calibration.measures import Measure, said
from stages.s09_calibration.report import interval
from stages.s09_calibration.stats import bootstrap_ci, excludes_zero, intercept, intercept_ci
from stages.s11_correction.estimates import Estimate, heading
from stages.s11_correction.estimates import lines as estimate_lines

SEED = 11
VERSIONS_CASES = FIXTURES / "versions_cases.json"
CHECKED = ("trajectory", "component")  # levels no judge is asked about: they must not move


OPENING = "Thanks! Happy to look into this one right away."
CLOSING = "Hope that helps; ask again anytime you like."


def thorough(case: Case) -> Case:
    """The case as the thorough version plays it: each answer padded, every call the same."""
    steps = tuple(
        {**step, "answer": pad(step["answer"], case.task)} if step.get("answer") else step
        for step in case.script
    )
    return replace(case, script=steps)


def pad(answer: str, task: str) -> str:
    """An opening, the answer, then its main sentence again and a closing, as much as the
    question's length decides (a real model pads some answers more than others: that spread is
    what lets the comparison tell length from version). Nothing comes from the question, whose
    words a reference shares, and the padding's words are in no reference."""
    main = max(pieces(answer) or [answer], key=len)
    parts = [OPENING, answer, f"Briefly: {main}", CLOSING]
    return "\n".join(parts[: 2 + len(task) % 3])


@dataclass(frozen=True)
class Pair:
    """One case in both versions: its judged score and answer length in each."""

    id: str
    before: int | None  # None when the judge's reply was unscored, or there was no answer
    after: int | None
    longer_by: int  # characters the answer gained
    same_path: bool  # trajectory and component ended in the same states


def score(row: dict[str, Any]) -> int | None:
    raw = row["levels"]["end_to_end"].get("raw")
    return parse_score(raw) if isinstance(raw, str) else None


def same_path(first: dict[str, Any], second: dict[str, Any]) -> bool:
    """Whether trajectory and component ended alike: no judge decides them, so no change may."""
    return all(first["levels"][v]["state"] == second["levels"][v]["state"] for v in CHECKED)


def results_by_id(report: Any, where: str) -> dict[str, dict[str, Any]]:
    """A stage-8 report's result rows by case id. A row without an id, or an id twice, stops
    the command: keeping one of two rows in silence would change every figure after."""
    results = report.get("results") if isinstance(report, dict) else None
    if not isinstance(results, list) or not all(isinstance(r, dict) and "id" in r for r in results):
        raise CourseInputError(f"{where} is not a stage-8 report (results, each with an id)")
    rows: dict[str, dict[str, Any]] = {}
    for number, row in enumerate(results, start=1):
        case = str(row["id"])
        if case in rows:
            raise CourseInputError(f"{where}: result {number}: case {case!r} is there twice")
        levels = row.get("levels")
        for level in ("end_to_end", *CHECKED):
            verdict = levels.get(level) if isinstance(levels, dict) else None
            if not (isinstance(verdict, dict) and isinstance(verdict.get("state"), str)):
                shown = "absent" if verdict is None else f"{verdict!r}"[:40]
                raise CourseInputError(
                    f"{where}: result {number} ({case!r}): levels.{level} is {shown}, not a "
                    "level's verdict (an object with a state)"
                )
        rows[case] = row
    return rows


def pairs(first: dict[str, Any], second: dict[str, Any], where: str) -> list[Pair]:
    """The cases of two stage-8 reports, paired by id; both must hold the same cases."""
    rows = [
        results_by_id(r, f"{where}: {name}") for r, name in ((first, "RUN_A"), (second, "RUN_B"))
    ]
    a, b = rows
    if set(a) != set(b):
        odd = sorted(set(a) ^ set(b))[:3]
        raise CourseInputError(f"{where}: the runs hold different cases, e.g. {odd}")
    try:
        return [
            Pair(
                case,
                score(a[case]),
                score(b[case]),
                len(b[case]["answer"] or "") - len(a[case]["answer"] or ""),
                same_path(a[case], b[case]),
            )
            for case in a
        ]
    except (KeyError, TypeError) as error:  # a row without its levels, or not an object
        raise CourseInputError(
            f"{where}: a result row lacks {error}: not a stage-8 report"
        ) from None


@dataclass(frozen=True)
class Comparison(Measure):
    pairs: int  # cases scored in both versions
    pass_rate: float | None  # change in the share passing, after minus before
    pass_ci: stats.Interval | None
    score: float | None  # change in the mean score
    score_ci: stats.Interval | None
    at_equal_length: float | None  # the score change where the lengths are the same
    length_ci: stats.Interval | None
    paths_changed: int  # cases whose checked levels moved: must be 0
    corrected: tuple[Estimate, ...] | None = None  # the change once people's labels count


def compare(found: list[Pair], seed: int = SEED) -> Comparison:
    """Found when the scores moved (the interval of the mean change excludes zero); the
    verdict says whether they moved at equal length too."""
    both = [(p.before, p.after, p.longer_by) for p in found]
    usable = [(b, a, n) for b, a, n in both if b is not None and a is not None]
    passes = [float((a >= PASS_MARK) - (b >= PASS_MARK)) for b, a, _ in usable]
    changes = [float(a - b) for b, a, _ in usable]
    longer = [float(n) for _, _, n in usable]
    score_ci, length_ci = bootstrap_ci(changes, seed), intercept_ci(longer, changes, seed)
    outcome = decide(Evidence(len(usable), len(found)), excludes_zero(score_ci))
    verdict = "no change in the scores"
    if outcome.state == Finding.FOUND and excludes_zero(length_ci):
        verdict = "the scores changed, and changed at equal length too: not the length alone"
    elif outcome.state == Finding.FOUND:
        verdict = "the judge rewarded length: the scores rose, and at equal length no change shows"
    return Comparison(
        outcome, said(outcome, verdict), len(usable),
        stats.mean(passes), bootstrap_ci(passes, seed), stats.mean(changes), score_ci,
        intercept(longer, changes), length_ci, sum(not p.same_path for p in found),
    )  # fmt: skip


def demo_runs(judge: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The stage-8 reports of the two versions of the agent on the demo cases, as JSON."""
    runs = [run_case(case) for case in load_cases(VERSIONS_CASES)]
    again = [run_case(thorough(run.case)) for run in runs]
    chosen, control = resolve(judge), resolve("steady")
    return evaluation(runs, chosen, control).to_json(), evaluation(again, chosen, control).to_json()


def demo(judge: str) -> Comparison:
    """The two versions of the agent on the demo cases, judged by `judge`, compared."""
    return compare(pairs(*demo_runs(judge), f"{judge}: the two versions"))


def render(label: str, c: Comparison) -> list[str]:
    """A comparison as text: its figures, the checked levels, its verdict or why there is none."""
    lines = [f"{label}: {c.pairs} cases scored in both ({c.outcome.evidence.counts()})"]
    if c.state == Finding.NOT_EVALUATED:
        return [*lines, f"  NOT EVALUATED — {c.outcome.reason}"]
    for name, value, ci in (
        ("pass rate", c.pass_rate, c.pass_ci),
        ("mean score", c.score, c.score_ci),
        ("score at equal length", c.at_equal_length, c.length_ci),
    ):
        lines.append(f"  {name}: {signed(value)} {interval(ci)}")
    lines.append(f"  trajectory and component: {c.paths_changed} cases moved (must be 0)")
    lines.append(f"  verdict: {c.verdict}")
    if c.corrected is not None:
        lines.append("  " + heading("the pass rate's change once people's labels count"))
        lines += estimate_lines(c.corrected, "    ", sign="+")
    return lines


def signed(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.2f}"
