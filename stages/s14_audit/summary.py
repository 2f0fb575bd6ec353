"""The audit's summary: what it measured, as one record, and the report that prints it.

A Summary holds the counts of the file's rows and a record for each measure: the length
confound; with human labels, the agreement at the gate and the pass rate four ways (None, and
left out of the JSON, without them). A figure that could not be computed is None: "n/a" in
the text, null in the JSON, never 0. `from_json` reads what `to_json` gives (`--json`) back.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, TypeVar

from stages.s08_eval.findings import Evidence, Finding, Outcome
from stages.s09_calibration.measures import Measure
from stages.s09_calibration.report import interval, number
from stages.s10_agreement.agreement import Trust, trust
from stages.s10_agreement.correlation import LengthConfound, length_confound
from stages.s10_agreement.kappa import kappa_from_table
from stages.s11_correction.correction import corrected, pass_rate
from stages.s11_correction.estimates import Estimate, heading
from stages.s11_correction.estimates import lines as rate_lines
from stages.s14_audit.audit import Audit
from stages.s14_audit.rows import Columns

M = TypeVar("M", bound=Measure)
MEASURES = ("length_confound", "calibration", "pass_rate")  # their keys, in the report's order


def tuples(data: dict[str, Any]) -> dict[str, Any]:
    """A JSON object's values as a record holds them: an interval's list is a tuple again."""
    return {name: tuple(v) if isinstance(v, list) else v for name, v in data.items()}


def measure_from_json(kind: type[M], data: dict[str, Any]) -> M:
    """A measure read back from its JSON object (Measure.to_json)."""
    evidence = Evidence(data["usable"], data["total"])
    outcome = Outcome(Finding(data["state"]), data["reason"], evidence)
    figures = tuples({f.name: data[f.name] for f in fields(kind)[2:]})
    return kind(outcome, data["verdict"], **figures)


@dataclass(frozen=True)
class Calibration(Trust):
    """Kappa against the people's labels at the gate, and the rows they disagree on."""

    disagreements: int  # rows in the review queue


@dataclass(frozen=True)
class PassRate:
    """The pass rate four ways (stage 11's `corrected`), over the measured rows."""

    state: str  # "evaluated", or not_evaluated when neither correction could be made
    reason: str  # why not, each correction's reason; "" when evaluated
    labelled: int  # measured rows with a human label
    unlabelled: int  # measured rows without one
    estimates: tuple[Estimate, ...]  # judge only, people only, Rogan-Gladen, PPI++

    def to_json(self) -> dict[str, Any]:
        return {**vars(self), "estimates": [vars(e) for e in self.estimates]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PassRate:
        estimates = tuple(Estimate(**tuples(e)) for e in data["estimates"])
        return cls(**{**data, "estimates": estimates})


@dataclass(frozen=True)
class Summary:
    """What an audit measured, on the evidence of the rows it read."""

    data_rows: int  # every data row in the file, measured or not
    rows: int  # measured
    skipped: int  # named in the skipped file
    problems: tuple[str, ...]  # the first SHOWN_BAD_ROWS skipped, as the report lists them
    length_confound: LengthConfound
    calibration: Calibration | None = None  # None without human labels (--human-col)
    pass_rate: PassRate | None = None  # the same

    def made(self) -> dict[str, Measure | PassRate]:
        """The measures the audit made, by their keys in the JSON."""
        every = (self.length_confound, self.calibration, self.pass_rate)
        return {name: m for name, m in zip(MEASURES, every, strict=True) if m is not None}

    @property
    def not_evaluated(self) -> list[str]:
        """The measures made that were not evaluated, by their keys."""
        return [name for name, m in self.made().items() if m.state == Finding.NOT_EVALUATED]

    def to_json(self) -> dict[str, Any]:
        """The object `--json` prints, but for where the two files were written."""
        counts = {"data_rows": self.data_rows, "rows": self.rows, "skipped": self.skipped}
        made = {name: m.to_json() for name, m in self.made().items()}
        shown = {"problems": list(self.problems), "not_evaluated": self.not_evaluated}
        return {**counts, **made, **shown}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Summary:
        """The record of an object `to_json` gave; `not_evaluated` is read from each measure."""
        counts = (data["data_rows"], data["rows"], data["skipped"], tuple(data["problems"]))
        calibration, rate = data.get("calibration"), data.get("pass_rate")
        return cls(
            *counts,
            measure_from_json(LengthConfound, data["length_confound"]),
            None if calibration is None else measure_from_json(Calibration, calibration),
            None if rate is None else PassRate.from_json(rate),
        )


def summary(found: Audit, columns: Columns) -> Summary:
    """The measures, each with its state, on the evidence of the rows measured."""
    evidence = Evidence(found.rows, found.data_rows)
    confound = length_confound(found.lengths, found.scores, evidence)
    counts = (found.data_rows, found.rows, found.skipped, tuple(found.problems))
    if not columns.human:
        return Summary(*counts, confound)
    t = found.tally()
    labelled = Evidence(t.labelled, t.labelled + found.skipped)
    agreement = trust(kappa_from_table(found.table), labelled)
    calibration = Calibration(**vars(agreement), disagreements=found.disagreements)
    return Summary(*counts, confound, calibration, PassRate.from_json(corrected(t, pass_rate(t))))


def render(name: str, result: Summary, gate: float, review: str, skipped: str) -> str:
    """The text report: the counts, the first skipped rows, each measure, where the files are."""
    lines = [
        f"audit of {name}: {result.data_rows} rows, {result.rows} measured, "
        f"{result.skipped} skipped"
    ]
    lines += [f"  skipped {problem}" for problem in result.problems]
    if result.skipped > len(result.problems):
        lines.append(f"  ... and {result.skipped - len(result.problems)} more")
    lines.append(f"every skipped row, with its problem: {skipped}")
    for measure, label, figures in measures(result, gate):
        if measure.state == Finding.NOT_EVALUATED:
            lines.append(f"{label}: NOT EVALUATED — {measure.outcome.reason}")
        else:
            lines.append(f"{label}: {figures} — {measure.verdict}")
    if (rate := result.pass_rate) is not None:
        shown = f"human labels on {rate.labelled} of {rate.labelled + rate.unlabelled}"
        lines.append(heading(f"pass rate, {shown} measured rows"))
        lines += rate_lines(rate.estimates)
        if rate.state == Finding.NOT_EVALUATED:
            lines.append("corrected pass rate: NOT EVALUATED — neither correction could be made")
    lines.append(f"review queue (the disagreements): {review}")
    return "\n".join(lines)


def measures(result: Summary, gate: float) -> list[tuple[Measure, str, str]]:
    """(measure, label, figures) for each measure the report shows in one line."""
    confound = result.length_confound
    correlation = (
        f"spearman {number(confound.spearman)} {interval(confound.ci)}, "
        f"pearson {number(confound.pearson)}"
    )
    found: list[tuple[Measure, str, str]] = [(confound, "length confound", correlation)]
    if (c := result.calibration) is not None:
        kappa = (
            f"kappa {number(c.kappa)} (observed {number(c.observed)}, by chance "
            f"{number(c.expected)}), {c.disagreements} disagreements"
        )
        found.append((c, f"agreement with people at gate {gate:g}", kappa))
    return found
