"""The report as text a person reads, from the report's records alone: nothing here measures."""

from __future__ import annotations

from stages.s08_eval.findings import Finding
from stages.s08_eval.length import LengthResult
from stages.s08_eval.levels import Level
from stages.s08_eval.position import PositionResult
from stages.s08_eval.report import Report, Side


def render(report: Report) -> str:
    sections = (_summary, _levels, _detectors, _survey, _checks, _cases)
    return "\n".join(line for section in sections for line in section(report))


def _summary(report: Report) -> list[str]:
    reasons = report.not_successful
    lines = ["Stage 8 — evaluation report"]
    lines += [f"RUN IS NOT SUCCESSFUL: {reason}" for reason in reasons[:1]]
    lines += [f"  and: {reason}" for reason in reasons[1:]]
    lines.append(" · ".join(f"{label}: {s.name} ({calls(s)})" for label, s in report.sides.items()))
    total, edges = len(report.results), sum(row["edge"] for row in report.results)
    lines.append(f"cases: {total}, {edges} of them edge cases (read from the trajectories)")
    return lines


def _levels(report: Report) -> list[str]:
    widths = {"passed": 7, "failed": 7, "unscored": 9, "not_evaluated": 14}
    lines = ["", f"{'level':<12} " + " ".join(f"{name:>{w}}" for name, w in widths.items())]
    for level, counts in report.levels.items():
        lines.append(f"{level:<12} " + " ".join(f"{counts[n]:>{w}}" for n, w in widths.items()))
    lines += [f"(every level counts all {len(report.results)} cases)", ""]
    return lines


def _detectors(report: Report) -> list[str]:
    sides = report.sides.items()
    lines = ["position bias:"]
    lines += [f"  {label:<7} ({s.name}): {describe_position(s.position)}" for label, s in sides]
    lines.append("length bias:")
    for label, side in sides:
        first, *gaps = describe_length(side.length)
        lines += [f"  {label:<7} ({side.name}): {first}", *(f"    {gap.strip()}" for gap in gaps)]
    for detector in report.detector_broken:
        name = detector.replace("_", " ").upper()
        lines.append(f"THE {name} DETECTOR IS BROKEN: the control shows bias")
    return lines


def _survey(report: Report) -> list[str]:
    stages = report.trace_survey.stages
    fields = {field for found in stages.values() for field in found}
    without = ", ".join(report.trace_survey.without_run_key) or "none"
    return [
        "",
        f"trace survey: {len(stages)} earlier stages write traces, {len(fields)} distinct fields",
        *(f"  {stage}: {', '.join(found)}" for stage, found in stages.items()),
        f"  no run key: {without}",
    ]


def _checks(report: Report) -> list[str]:
    """Sampling, flakiness, and every case whose label its trajectory contradicts."""
    sampling = report.sampling
    share = sampling["sent"] / sampling["requests"]
    lines = [
        f"sampling: {sampling['sent']} of {sampling['requests']} requests sent to the judge "
        f"({share:.1%}) — {sampling['state']}",
        f"flakiness: repeated judging, identical verdicts? — {report.flakiness['state']}",
    ]
    for row in report.results:
        if row["label"] and (row["label"] == "edge") != row["edge"]:
            shows = ", ".join(row["signals"]) or "none"
            lines.append(
                f"label ignored: {row['id']} is labelled {row['label']}; its trace shows {shows}"
            )
    return lines


def _cases(report: Report) -> list[str]:
    lines = ["", f"{'case':<22} {'edge':<5} {'end_to_end':<11} {'trajectory':<11} component"]
    for row in report.results:
        states = " ".join(f"{row['levels'][level]['state']:<11}" for level in Level)
        lines.append(f"{row['id']:<22} {'yes' if row['edge'] else '':<5} {states}".rstrip())
    return lines


def calls(side: Side) -> str:
    """How many times a judge was asked; for a judge that describes itself (one behind an
    endpoint), the requests it made and the replies it received, kept or new."""
    usage = side.instrument
    if usage is None:
        return f"{side.calls} calls"
    return (
        f"{side.calls} questions: {usage.requests} requests to {usage.endpoint}, "
        f"{usage.paid_calls} replies received, {usage.from_cache} from {usage.kept_in}"
    )


def describe_position(result: PositionResult) -> str:
    return _tally(result.state, result.flips, result.pairs, result.unscored, result.reason)


def describe_length(result: LengthResult) -> list[str]:
    """The tally, then one line per pair: its score without and with the padding."""
    lines = [_tally(result.state, result.found, result.pairs, result.unscored, result.reason)]
    for gap in result.gaps:
        if gap.before is None or gap.after is None:
            lines.append(f"  {gap.task}: unscored")
            continue
        change = f"{gap.after - gap.before:+d} for {gap.extra_chars} extra characters"
        lines.append(f"  {gap.task}: {gap.before} -> {gap.after} ({change})")
    return lines


def _tally(state: Finding, hits: int, pairs: int, unscored: int, reason: str) -> str:
    """ "FOUND — 3 of 3", "none found — 0 of 2 (1 of 3 unscored)", or why not evaluated."""
    if state == Finding.NOT_EVALUATED:
        return f"NOT EVALUATED — {reason}"
    word = "FOUND" if state == Finding.FOUND else "none found"
    lost = f" ({unscored} of {pairs} unscored)" if unscored else ""
    return f"{word} — {hits} of {pairs - unscored}{lost}"
