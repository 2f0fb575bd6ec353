"""The stage's report: each recorded judge measured, scope by scope, beside the control (the
experts' labels read as a judge); the panel; our reading of the replies beside the benchmark's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stages.s08_eval.findings import Finding
from stages.s09_calibration.measures import Measure, plain
from stages.s09_calibration.stats import Interval
from stages.s18_judges_on_record import measures as m
from stages.s18_judges_on_record.panel import Panel, panel
from stages.s18_judges_on_record.reading import KINDS, Beside
from stages.s18_judges_on_record.record import SCOPES, Record

CONTROL = "experts (control)"  # the mirrored half: a label has no slot and no taste


@dataclass(frozen=True)
class Measured:
    """One judge on one set of pairs: the four measures."""

    consistency: m.Consistency
    first_slot: m.FirstSlot
    agreement: list[m.Agreement]
    length: m.Length

    def measures(self) -> list[Measure]:
        return [self.consistency, self.first_slot, self.length]


def measured(j: m.Judged) -> Measured:
    return Measured(m.consistency(j), m.first_slot(j), m.agreement(j), m.length(j))


@dataclass(frozen=True)
class Scope:
    pairs: int
    judges: dict[str, Measured]  # the control last
    panel: Panel


@dataclass(frozen=True)
class Report:
    scopes: dict[str, Scope]
    reading: dict[str, Beside]

    def to_json(self) -> dict[str, Any]:
        return {"scopes": plain(self.scopes), "reading": plain(self.reading)}

    def clean(self) -> bool:
        """Every measure evaluated, and none found on the control: the report's exit 0."""
        return all(x.state == Finding.NOT_FOUND if judge == CONTROL else
                   x.state != Finding.NOT_EVALUATED for s in self.scopes.values()
                   for judge, j in s.judges.items() for x in j.measures())  # fmt: skip


def report(record: Record) -> Report:
    scopes = {}
    for name in SCOPES:
        judged = {judge: j.take(record.scope(name)) for judge, j in record.judged.items()}
        some = next(iter(judged.values()))
        rows = {judge: measured(j) for judge, j in judged.items()}
        rows[CONTROL] = measured(m.as_judge(some.label, some.longer))
        scopes[name] = Scope(some.pairs, rows, panel(judged, some.label))
    return Report(scopes, record.beside)


# ---- rendering: a row a judge, a figure with its interval, * for a finding ----------------


def figure(value: float | None, ci: Interval | None = None, found: bool = False) -> str:
    if value is None:
        return "n/a"
    return f"{value:.2f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "") + "*" * found


def p_value(p: float | None) -> str:
    return "n/a" if p is None else f"{p:.3f}" if p >= 0.001 else "<0.001"


def bias_row(name: str, j: Measured) -> str:
    c, f, n = j.consistency, j.first_slot, j.length
    swap, first = (figure(x.share, x.ci, x.state == Finding.FOUND) for x in (c, f))
    gap = figure(n.gap, n.gap_ci, n.state == Finding.FOUND)
    longer = f"{figure(n.judge_longer)} / {figure(n.label_longer)}, gap {gap}"
    return f"  {name:<18} {swap:<20} {first:<20} {p_value(f.p):>6}   {longer}"


def agreement_row(name: str, j: Measured) -> str:
    cells = [f"{figure(a.share, a.ci):<19}" for a in j.agreement]
    kappas = [figure(a.kappa, a.kappa_ci) for a in j.agreement if a.of != "both orders"]
    return f"  {name:<18} " + " ".join(cells) + " " + " / ".join(kappas)


BIASES = (
    "  judge              survives the swap    first-slot share          p   longer: judge / labels"
)
RIGHT = "  judge              as shown            swapped             both orders         kappa"


def render(r: Report) -> list[str]:
    lines = []
    for name, s in r.scopes.items():
        lines += [f"{name} ({s.pairs} pairs): biases", BIASES]
        lines += [bias_row(judge, j) for judge, j in s.judges.items()]
        lines += [f"{name}: right by the experts' label", RIGHT]
        lines += [agreement_row(judge, j) for judge, j in s.judges.items() if judge != CONTROL]
        lines += [*render_panel(s.panel), ""]
    lines.append("* a finding: a verdict changed with the order; the sign test's p below 0.05; "
                 "the gap's interval excludes 0")  # fmt: skip
    return lines + render_reading(r.reading)


def render_panel(p: Panel) -> list[str]:
    return [
        f"  a panel of {len(p.judges)}, the majority of the verdicts that survived the swap "
        f"({p.abstained} votes not cast, {p.no_majority} pairs without a majority):",
        f"    right: the panel {figure(p.panel.share, p.panel.ci)}, {p.best.of} alone "
        f"{figure(p.best.share, p.best.ci)}, the other {len(p.judges) - 1} "
        f"{figure(p.others.share, p.others.ci)}; McNemar's p {p_value(p.p)}",
        f"    their errors correlate at {figure(p.correlation)}: worth {figure(p.effective)} "
        f"independent votes; Krippendorff's alpha {figure(*p.alpha)} among them, "
        f"{figure(*p.alpha_with_label)} with the experts",
    ]


def render_reading(reading: dict[str, Beside]) -> list[str]:
    lines = ["our reading of the replies beside the benchmark's (" + ", ".join(KINDS) + "):"]
    for judge, b in reading.items():
        lines.append(f"  {judge:<13} " + ", ".join(str(b.counts[kind]) for kind in KINDS))
        lines += [f"    {where}: ours {ours}, theirs {theirs}: {reply.strip()[:60]!r}"
                  for where, reply, ours, theirs in b.shown if ours != theirs]  # fmt: skip
    return lines
