"""The corrected number for a run: a stage-8 report's judge, and people's labels on some cases
(the stage's `correct` command).

The report gives the judge's verdict on each case (its end-to-end level passed or failed)
and its score; the labels file (CSV or JSONL, read as `audit` reads one) gives a person's
verdict on some cases: a pass/fail word, true/false, or a score read at the gate. A blank
label leaves that case unlabelled. Stage 9's estimates follow: the pass rate four ways, and,
when every label is a number, the mean score three ways (Rogan-Gladen needs pass/fail).

Labels are few and each one cost a person's time, so none is skipped: a label that cannot
be read, a case the report does not hold, or a case labelled twice stops the command with
the row named (exit 2). A case the judge could not score has no verdict to correct: it is
left out of every estimate, and named.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stages.s01_model.errors import CourseInputError
from stages.s11_correction.correction import Tally, made, pass_rate, tally
from stages.s11_correction.estimates import Estimate, heading, lines, mean_score
from stages.s14_audit.cells import Rules, Unusable, a_flag, blank, flags_at_the_gate
from stages.s14_audit.rows import rows_of
from stages.s15_versions.versions import results_by_id, score

SCALE = (0.0, 10.0)  # a stage-8 judge's scores


@dataclass(frozen=True)
class LabelColumns:
    case: str
    human: str

    def named(self) -> list[str]:
        return [self.case, self.human]


@dataclass(frozen=True)
class Label:
    passed: bool
    score: float | None  # the label as a number, when it was one


def read_labels(
    path: Path, columns: LabelColumns, gate: float, **reading: Any
) -> dict[str, Label | None]:
    """Each labelled case's label (None: left blank); any row that cannot be read stops."""
    found: dict[str, Label | None] = {}
    flags: list[str] = []  # cases labelled with a number from 0 to 1
    with rows_of(path, columns, **reading) as (rows, rules):
        for row, _, record, problem in rows:
            try:
                if record is None:
                    raise Unusable(problem)
                case, value = str(record[columns.case]).strip(), record[columns.human]
                if case in found:
                    raise Unusable(f"case {case!r} is labelled a second time")
                found[case] = (
                    None if blank(value) else read_label(value, rules, columns.human, gate)
                )
                flags += [case] if a_flag(value) else []
            except Unusable as why:
                raise CourseInputError(f"{path}: row {row}: {why}") from None
    if gate > 1 and 0 < len(flags) == sum(label is not None for label in found.values()):
        raise CourseInputError(flags_at_the_gate(str(path), gate, "correct --gate 1"))
    return found


def read_label(value: Any, rules: Rules, column: str, gate: float) -> Label:
    """A number is kept as a score and read at the gate; anything else as pass/fail."""
    try:
        number = rules.number(value, "human label", column)
    except Unusable:
        return Label(rules.label(value, column, gate), None)
    return Label(number >= gate, number)


Judged = dict[str, tuple[bool, int | None] | None]  # by case: (passed, score), or no verdict


def verdicts(report: Any, where: str) -> Judged:
    """Each case's judge verdict and score in a stage-8 report; None when it has none."""
    rows = results_by_id(report, where)
    try:
        states = {case: row["levels"]["end_to_end"]["state"] for case, row in rows.items()}
    except (KeyError, TypeError) as error:
        raise CourseInputError(
            f"{where}: a result row lacks {error}: not a stage-8 report"
        ) from None
    return {
        case: (state == "passed", score(rows[case])) if state in ("passed", "failed") else None
        for case, state in states.items()
    }


@dataclass(frozen=True)
class Correction:
    cases: int
    unscored: list[str]  # cases the judge gave no verdict on: left out of every estimate
    rates: Tally
    pass_rate: list[Estimate]
    mean_score: list[Estimate] | None  # when every label and every judge score is a number


def correct(judge: Judged, people: dict[str, Label | None], where: str) -> Correction:
    """The run's pass rate four ways (and its mean score three ways, when it can be)."""
    strangers = [case for case in people if case not in judge]
    if strangers:
        raise CourseInputError(
            f"{where}: labels for cases the report does not hold: {strangers[:5]}"
        )
    scored = [(case, found) for case, found in judge.items() if found is not None]
    labels = [people.get(case) for case, _ in scored]
    rates = tally(
        [passed for _, (passed, _) in scored],
        [None if given is None else given.passed for given in labels],
    )
    unscored = [case for case, found in judge.items() if found is None]
    scores = [found[1] for _, found in scored]
    return Correction(len(judge), unscored, rates, pass_rate(rates), mean_of(scores, labels))


def mean_of(judged: list[int | None], labels: list[Label | None]) -> list[Estimate] | None:
    """The mean score three ways; None unless every label and every judge score is a number."""
    people, paired, rest = [], [], []
    for judge, person in zip(judged, labels, strict=True):
        if judge is None:
            return None
        if person is None:
            rest.append(float(judge))
        elif person.score is None:  # a pass/fail word: no score to average
            return None
        else:
            people.append(person.score)
            paired.append(float(judge))
    return mean_score(people, paired, rest, SCALE) if people else None


# ---- the command ---------------------------------------------------------------------------


def render(found: Correction, title: str) -> list[str]:
    t, left_out = found.rates, found.unscored
    shown = [
        f"corrected pass rate of {title}:",
        f"  {found.cases} cases; human labels on {t.labelled} of the {t.cases} the judge gave a "
        "verdict on",
    ]
    if left_out:
        shown.append(f"  {len(left_out)} with no judge verdict, left out: {', '.join(left_out)}")
    shown += [heading("pass rate"), *lines(found.pass_rate)]
    if found.mean_score is not None:
        shown += [heading("mean score"), *lines(found.mean_score)]
    if not made(found.pass_rate):
        shown.append("corrected pass rate: NOT EVALUATED — neither correction could be made")
    return shown
