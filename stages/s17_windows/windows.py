"""Scores over time: watch their distribution, not one score; distrust a metric that only rises.

A judge's scores arrive in windows (a week each, say). Each window is set against the next,
and the first against the last, by the population stability index (psi.py: how far apart,
with how often chance alone puts windows of these sizes that far apart): a drift too slow to
show week by week still adds up. Every window is cut into the same bins, chosen once from all
of them pooled (bins()), and needs MIN_WINDOW usable scores. PSI says how far apart, never
why: a new agent, a new judge and new users look alike to it. A figure past the largest
float (bins from -1e308 to 1e308, their mean) is not evaluated, never read as "stable".

A mean that rose in every one of the last LAST windows is flagged: a metric that only climbs
may be a judge that likes something (length, say), not a better agent. demo_windows() plays
that out: an agent drifting towards verbosity, before a length-loving judge.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from stages.s06_resilience.guard import Progress
from stages.s08_eval.cases import load_cases, run_case
from stages.s08_eval.findings import Evidence, Finding, Outcome, decide
from stages.s08_eval.report import Report, evaluation
from stages.s08_eval.specs import resolve
from stages.s09_calibration.measures import Measure, plain, said
from stages.s09_calibration.report import number
from stages.s09_calibration.stats import mean
from stages.s14_audit.rows import Columns, name_row, read_each, rows_of
from stages.s15_versions.versions import VERSIONS_CASES, score, thorough
from stages.s17_windows.psi import ALPHA, MAJOR, by_chance, psi, reading

MIN_WINDOW = 10  # usable scores a window needs before its distribution is compared
DISTINCT_BINS = 20  # at most this many distinct scores: each value is its own bin
EQUAL_BINS = 10  # more distinct scores than that: this many bins of equal width
LAST = 3  # steps in a row a metric must have risen in to be flagged
ASK = "ask why before trusting it"  # a metric that only goes up may be the judge, not the agent
WEEKS, PER_WEEK = 4, 4  # the demo: in week k (from 0) the first PER_WEEK * k cases are thorough


@dataclass(frozen=True)
class Window:
    """The scores of one window, and its rows that could not be read: counted, never dropped."""

    label: str
    scores: tuple[float, ...]
    unread: int  # rows of this window without a usable score
    problems: tuple[str, ...] = ()  # the first SHOWN_BAD_ROWS unread rows, each with why


def joint(windows: Sequence[Window]) -> Evidence:
    """What a measure over these windows stands on: their scores, of all their rows."""
    usable = sum(len(window.scores) for window in windows)
    return Evidence(usable, usable + sum(window.unread for window in windows))


def thin(window: Window) -> str | None:
    """Why a window is too thin to measure (too few scores, or too many unread); None if not."""
    evidence = joint((window,))
    why = evidence.shortfall()
    if why is None and evidence.usable < MIN_WINDOW:
        why = f"fewer than {MIN_WINDOW} usable scores: {evidence.counts()}"
    return None if why is None else f"{window.label}: {why}"


class Unbinnable(ValueError):
    """Scores whose pooled range is wider than the largest float: no bins of equal width."""


def bins(windows: Sequence[Window]) -> tuple[float, ...]:
    """The lower edges of the bins every window is cut into, chosen from all of them pooled.
    A judge's scores are mostly a few values (0 to 10): with at most DISTINCT_BINS distinct
    values each is its own bin; with more, EQUAL_BINS bins of equal width span the pooled
    range, and a range past the largest float raises Unbinnable. No scores give no bins."""
    pooled = sorted({value for window in windows for value in window.scores})
    if len(pooled) <= DISTINCT_BINS:
        return tuple(pooled)
    low, width = pooled[0], (pooled[-1] - pooled[0]) / EQUAL_BINS
    if not math.isfinite(width):  # 1e308 - (-1e308) is inf: each edge would be NaN or inf
        span = f"from {low:g} to {pooled[-1]:g}"
        raise Unbinnable(f"scores too large to bin: the span {span} overflows a float")
    return tuple(low + step * width for step in range(EQUAL_BINS))


@dataclass(frozen=True)
class Shift(Measure):
    before: str  # the windows' labels
    after: str
    n_before: int  # usable scores in each
    n_after: int
    psi: float | None  # None when not evaluated: on a thin window it is mostly smoothing
    p_value: float | None  # how often relabelling the pooled scores gives a PSI this large


def shift(
    before: Window, after: Window, edges: Sequence[float], unbinned: str | None = None
) -> Shift:
    """Found when the two distributions are a major shift apart (PSI above MAJOR) and
    chance alone rarely puts windows of these sizes that far apart (p below ALPHA); not
    evaluated on a thin window, or when the scores could not be binned (`unbinned`, why)."""
    evidence = joint((before, after))
    short = [why for why in (thin(before), thin(after), unbinned) if why is not None]
    value = None if short else psi(before.scores, after.scores, edges)
    p = None if short else by_chance(before.scores, after.scores, edges)
    if value is None or p is None:
        outcome = Outcome(Finding.NOT_EVALUATED, "; ".join(short), evidence)
        return Shift(outcome, None, before.label, after.label, *sizes(before, after), None, None)
    outcome = decide(evidence, value > MAJOR and p < ALPHA)
    verdict = reading(value)
    if value > MAJOR and p >= ALPHA:
        verdict = f"{verdict} by the index, no more than chance gives windows this small"
    return Shift(outcome, verdict, before.label, after.label, *sizes(before, after), value, p)


def sizes(before: Window, after: Window) -> tuple[int, int]:
    return len(before.scores), len(after.scores)


def overflows(window: Window) -> str | None:
    """Why a window's mean cannot be taken (its sum, numpy's as the mean's, is not finite)."""
    with np.errstate(over="ignore"):  # named in the reason instead of warned about
        total = np.sum(window.scores)
    if math.isfinite(total):
        return None
    top = max(window.scores, key=abs)
    return f"{window.label}: scores too large to average: up to {top:g}, their sum overflows"


@dataclass(frozen=True)
class Rising(Measure):
    metric: str
    last: int  # steps looked at: the last `last` windows, each against the one before
    labels: tuple[str, ...]  # every window's
    means: tuple[float | None, ...]  # every window's; None with no score, or past a float
    rose: tuple[bool, ...]  # each of the last steps, strictly up or not; () if not evaluated


def rising(windows: Sequence[Window], last: int = LAST) -> Rising:
    """Found when the mean score rose in every one of the last `last` windows. It needs
    last + 1 windows at the end, each with enough scores (as a shift does)."""
    if last < 1:
        raise ValueError(f"last must be 1 or more, got {last}")
    looked = windows[-(last + 1) :]
    enough = sum(thin(window) is None for window in looked)
    huge = [why for why in map(overflows, looked) if why is not None]
    means = tuple(None if overflows(window) else mean(window.scores) for window in windows)
    recent = [value for value in means[-(last + 1) :] if value is not None]
    rose = tuple(b > a for a, b in pairwise(recent)) if enough == last + 1 and not huge else ()
    needs = f"needs {last + 1} windows of at least {MIN_WINDOW} usable scores, got {enough}"
    outcome = decide(joint(looked), all(rose) if rose else None, "; ".join(huge) or needs)
    verdict = f"the mean score rose in {sum(rose)} of the last {last} windows"
    if outcome.state == Finding.FOUND:
        verdict = f"the mean score rose in every one of the last {last} windows: {ASK}"
    labels = tuple(window.label for window in windows)
    return Rising(outcome, said(outcome, verdict), "the mean score", last, labels, means, rose)


@dataclass(frozen=True)
class Drift:
    """The windows' bins, each consecutive shift, the first against the last, and the rise."""

    bins: tuple[float, ...]
    shifts: tuple[Shift, ...]
    overall: Shift | None  # the first window against the last; None with fewer than three
    rising: Rising

    def to_json(self) -> dict[str, Any]:
        return {name: plain(value) for name, value in vars(self).items()}


def drift(windows: Sequence[Window], last: int = LAST, progress: Progress | None = None) -> Drift:
    """Every pair of windows tested, consecutive ones then the first and the last; scores
    that cannot be binned leave every shift not evaluated, with why, and no bins."""
    try:
        edges, unbinned = bins(windows), None
    except Unbinnable as why:
        edges, unbinned = (), str(why)
    pairs = [*pairwise(windows), *([(windows[0], windows[-1])] if len(windows) > 2 else [])]
    each = pairs if progress is None else progress.each(pairs)
    tested = [shift(a, b, edges, unbinned) for a, b in each]
    overall = tested.pop() if len(windows) > 2 else None
    return Drift(edges, tuple(tested), overall, rising(windows, last))


def read_window(path: Path, column: str = "score") -> Window:
    """One window from a CSV or JSONL file, labelled by the file's name, read by the audit's
    rules (rows.py, cells.py): a row without a usable score is counted and named."""
    scores: list[float] = []
    problems: list[str] = []
    unread = 0
    with rows_of(path, Columns(score=column)) as (rows, rules):

        def take(_: int, record: dict[str, Any]) -> None:
            scores.append(rules.number(record[column], "score", column))

        for row, line, problem in read_each(rows, take):
            if problem is not None:
                unread += 1
                name_row(problems, row, line, problem)
    return Window(path.name, tuple(scores), unread, tuple(problems))


def demo_windows(judge: str) -> list[Window]:
    """Four weeks of an agent drifting towards verbosity, judged by `judge`, offline. Each
    version answers the demo cases once; a week takes each case's score from one of them."""
    cases = load_cases(VERSIONS_CASES)
    chosen, control = resolve(judge), resolve("steady")
    terse = judged(evaluation([run_case(case) for case in cases], chosen, control))
    verbose = judged(evaluation([run_case(thorough(case)) for case in cases], chosen, control))
    weeks = []
    for week in range(WEEKS):
        picked = [(verbose if n < PER_WEEK * week else terse)[c.id] for n, c in enumerate(cases)]
        scores = tuple(float(value) for value in picked if value is not None)
        weeks.append(Window(f"week {week + 1}", scores, len(picked) - len(scores)))
    return weeks


def judged(report: Report) -> dict[str, int | None]:
    """A stage-8 report's end-to-end scores by case id (None where unscored)."""
    return {str(row["id"]): score(row) for row in report.results}


def render(found: Drift) -> list[str]:
    """The drift as text: every shift, then the mean window by window and its verdict."""
    lines = [f"shifts, as PSI over {len(found.bins)} bins (above {MAJOR} a major shift):"]
    lines += [f"  {described(each)}" for each in found.shifts]
    if found.overall is not None:
        lines.append(f"  first to last, {described(found.overall)}")
    rise = found.rising
    pairs = zip(rise.labels, rise.means, strict=True)
    means = ", ".join(f"{label} {number(value)}" for label, value in pairs)
    lines.append(f"{rise.metric} by window: {means}")
    if rise.state == Finding.NOT_EVALUATED:
        return [*lines, f"  NOT EVALUATED — {rise.outcome.reason}"]
    return [*lines, f"  verdict: {rise.verdict}"]


def described(found: Shift) -> str:
    pair = f"{found.before} → {found.after}"
    if found.psi is None or found.p_value is None:
        return f"{pair}: NOT EVALUATED — {found.outcome.reason}"
    counts = f"{found.n_before} and {found.n_after} scores"
    p = "p < 0.001" if found.p_value < 0.001 else f"p {found.p_value:.3f}"
    return f"{pair}: PSI {found.psi:.3f} ({p}), {found.verdict} ({counts})"
