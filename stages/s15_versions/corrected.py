"""The corrected number for a run: a stage-8 report's judge, and people's labels on some cases.

    python -m stages.s15_versions correct [REPORT LABELS] [--id-col C] [--human-col C]
                                       [--gate N] [--json] [--encoding E] [--delimiter D]

The report gives the judge's verdict on each case (its end-to-end level passed or failed)
and its score; the labels file (CSV or JSONL, read as `audit` reads one) gives a person's
verdict on some cases: a pass/fail word, true/false, or a score read at the gate. A blank
label leaves that case unlabelled. Stage 9's estimates follow: the pass rate four ways, and,
when every label is a number, the mean score three ways (Rogan-Gladen needs pass/fail).

Labels are few and each one cost a person's time, so none is skipped: a label that cannot
be read, a case the report does not hold, or a case labelled twice stops the command with
the row named (exit 2). A case the judge could not score has no verdict to correct: it is
left out of every estimate, and named. Without arguments, a simulated world where the truth
is known (stage 9's simulation.py) shows what the correction does.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stages.s01_model.cli import short
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import load_json
from stages.s08_eval.levels import PASS_MARK
from stages.s09_calibration.correction import Tally, corrected, made, pass_rate, tally
from stages.s09_calibration.estimates import Estimate, heading, lines, mean_score
from stages.s09_calibration.simulation import LESSON_SEED, World, covers, simulate
from stages.s14_audit.cells import Rules, Unusable, a_flag, blank, flags_at_the_gate
from stages.s14_audit.rows import rows_of
from stages.s15_versions.versions import score

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
    if not isinstance(report, dict) or not isinstance(report.get("results"), list):
        raise CourseInputError(f"{where}: no list of results: not a stage-8 report")
    try:
        rows = {row["id"]: row for row in report["results"]}
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


def add_correct(commands: Any) -> None:
    found = commands.add_parser("correct", help="a run's pass rate, corrected by human labels")
    found.add_argument(
        "files",
        nargs="*",
        type=Path,
        metavar="REPORT LABELS",
        help="a stage-8 JSON report and a file of labels (none: a simulation)",
    )
    found.add_argument("--id-col", default="id", help="the labels' case id column (id)")
    found.add_argument("--human-col", default="human", help="the labels' column (human)")
    found.add_argument(
        "--gate",
        type=float,
        default=PASS_MARK,
        help=f"a score label at or above passes ({PASS_MARK})",
    )
    found.add_argument("--encoding", help="the labels file's text encoding (default UTF-8)")
    found.add_argument("--delimiter", help="the labels' CSV delimiter (default: sniffed)")
    found.add_argument("--json", action="store_true", help="print one JSON object")


def run_correct(args: argparse.Namespace) -> int:
    """Exit 0 when a correction was made; 1 when neither could be (or, in the simulation,
    when the judge alone is not told apart from the corrections)."""
    if not args.files:
        return simulated(args.json)
    if len(args.files) != 2:
        raise CourseInputError(
            f"correct: give a stage-8 report and a labels file, not {len(args.files)} files"
        )
    if not math.isfinite(args.gate):
        raise CourseInputError(f"--gate {args.gate!r}: expected a finite number")
    report, labels = args.files
    columns = LabelColumns(args.id_col, args.human_col)
    people = read_labels(
        labels, columns, args.gate, encoding=args.encoding, delimiter=args.delimiter
    )
    found = correct(verdicts(load_json(report), short(report)), people, short(labels))
    rate = corrected(found.rates, found.pass_rate)
    if args.json:
        means = None if found.mean_score is None else [vars(e) for e in found.mean_score]
        shown = {
            "cases": found.cases,
            "unscored": found.unscored,
            "pass_rate": rate,
            "mean_score": means,
        }
        print(json.dumps(shown, sort_keys=True))
    else:
        print("\n".join(render(found, f"{short(report)} with labels from {short(labels)}")))
    return 0 if made(found.pass_rate) else 1


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


def simulated(as_json: bool) -> int:
    """The lesson's simulated world: exit 0 when the judge alone misses the truth and both
    corrections contain it."""
    world = World()
    estimates = pass_rate(simulate(world, LESSON_SEED))
    told = not covers(estimates[0], world.rate) and all(
        covers(e, world.rate) for e in estimates[2:]
    )
    if as_json:
        print(json.dumps({"truth": world.rate, "estimates": [vars(e) for e in estimates]}))
        return 0 if told else 1
    print(
        f"a simulated world (seed {LESSON_SEED}): {world.cases} cases, {world.labelled} labelled "
        f"by people; the judge's TPR {world.tpr}, TNR {world.tnr}; the true pass rate {world.rate}"
    )
    print("\n".join([heading("pass rate"), *lines(estimates)]))
    verdict = "the judge alone misses the truth; both corrections contain it"
    print(verdict if told else "NOT TOLD APART: " + verdict.replace(";", " or"))
    return 0 if told else 1
