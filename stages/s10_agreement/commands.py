"""The commands' parts: the report measured and written with its review queue, and the gate.

This stage's command and the later ones that carry the same report or gate use them; each
takes values and records, never parsed arguments.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from stages.s01_model.cli import short
from stages.s01_model.files import dumps, folder, writable, write_text
from stages.s08_eval.commands import emit, status
from stages.s08_eval.judge import CountingJudge
from stages.s08_eval.specs import JudgeChoice
from stages.s09_calibration.calibrate import SEED
from stages.s09_calibration.calibration import CalCase, load_calibration
from stages.s09_calibration.commands import Commands, add_report, written
from stages.s09_calibration.measures import plain
from stages.s09_calibration.report import Side, unscored_line
from stages.s09_calibration.twins import load_twins
from stages.s10_agreement.gate import GATE_FILE, Rule
from stages.s10_agreement.people import AgreedRun, asking, calibrate_against_people
from stages.s10_agreement.report import Report, to_json
from stages.s10_agreement.rubric_change import rubric_change
from stages.s10_agreement.rubrics import Rubric
from stages.s10_agreement.structured import Reply

REPLIES = [str(reply) for reply in Reply]

RUBRIC_RECORD = Path(__file__).resolve().parent / "rubric_change.json"
# How one judge is calibrated: this stage's, or a later stage's that adds to it.
Calibrate = Callable[..., AgreedRun]


def add_commands(
    commands: Any, specs: str, out: Path, name: str = "report", gate: Path | None = GATE_FILE
) -> Commands:
    """The report (under `name`) and the gate with its thresholds' file (None: no gate), for
    this stage and the ones that carry them."""
    report = add_report(commands, name, specs, out)
    report.add_argument("--reply", choices=REPLIES, default="bare", help="reply form")
    record = f"also write the rubric change to {RUBRIC_RECORD.name} (the lesson quotes it)"
    report.add_argument("--write-rubric-record", action="store_true", help=record)
    if gate is None:
        return {name: report}
    gated = commands.add_parser("gate", help="exit 1 unless the judge passes every rule")
    gated.add_argument("--judge", default="biased", help=specs)
    gated.add_argument("--config", type=Path, default=gate, help="thresholds (TOML)")
    gated.add_argument("--reply", choices=REPLIES, default="bare", help="reply form")
    gated.add_argument("--json", action="store_true", help="print one JSON object")
    return {name: report, "gate": gated}


def outputs(out: Path, plots: Path | None) -> tuple[Path, Path, Path | None]:
    """The report's file, its review queue and the plots' folder, checked before any call."""
    out = writable(out, "--out")
    return out, writable(out.with_suffix(".review.jsonl"), "--out"), folder(plots, "--plots")


def measure_report(
    chosen: JudgeChoice,
    control: JudgeChoice,
    repeats: int,
    reply: Reply,
    calibrate: Calibrate = calibrate_against_people,
) -> Report:
    """Measure the judge and the control, and the judge again under the checklist rubric."""
    cases = load_calibration()
    twins = load_twins(cases)

    def run(choice: JudgeChoice, form: Reply, rubric: Rubric = Rubric.OPEN) -> AgreedRun:
        judge = CountingJudge(choice.judge, choice.name)
        return calibrate(judge, cases, twins, repeats=repeats, reply=form, rubric=rubric)

    judged, steady = run(chosen, reply), run(control, Reply.BARE)  # the steady fake replies bare
    checklist = run(chosen, reply, Rubric.FACTS)
    return Report(
        Side(judged, asking(reply), judged.judge.calls + checklist.judge.calls),
        Side(steady, asking(), steady.judge.calls),
        rubric_change(judged, checklist),
        simulated=chosen.fake,
    )


def emit_report(
    report: Report,
    text: list[str],
    as_json: bool,
    files: tuple[Path, Path, Path | None],
    rubric_record: bool = False,
) -> int:
    """Print the report, write it, its queue and its plots; 1 when it is not successful.
    `rubric_record`: also write the rubric change where the lesson quotes it from."""
    out, queue, plots = files
    result = to_json(report)
    emit(result, "\n".join(text), as_json, out)
    if rubric_record:
        write_text(RUBRIC_RECORD, dumps(result["rubric_change"], indent=2) + "\n")
    write_text(queue, "".join(dumps(row) + "\n" for row in result["calibration"]["queue"]))
    if plots is not None:
        from stages.s10_agreement.plots import draw  # matplotlib loads only when asked

        written(draw(report.judge.run, plots, SEED), "plot")
    print(f"report written to {short(out)}; review queue in {short(queue)}", file=sys.stderr)
    return status(report.not_successful)


def measure_gate(
    chosen: JudgeChoice, reply: Reply, cases: list[CalCase] | None = None
) -> AgreedRun:
    """The judge measured for the gate."""
    cases = load_calibration() if cases is None else cases
    judge = CountingJudge(chosen.judge, chosen.name)
    return calibrate_against_people(judge, cases, load_twins(cases), reply=reply)


def gate_json(run: AgreedRun, rules: list[Rule], config: Path, down: str | None) -> dict[str, Any]:
    """The gate's JSON object: the judge, its unscored replies, each rule, the verdict."""
    judge, passed = {**plain(run.judge), "unavailable": down}, all(r.passed for r in rules)
    return {"judge": judge, "unscored": plain(run.unscored), "config": short(config),
            "rules": plain(rules), "passed": passed}  # fmt: skip


def emit_gate(
    run: AgreedRun, rules: list[Rule], config: Path, reply: Reply, down: str | None, as_json: bool
) -> int:
    """Print every rule (`judge_gate`'s), or the gate as one JSON object; 1 when any fails.
    `down`: why the judge stopped being asked, when it did."""
    failed = sum(not rule.passed for rule in rules)
    if as_json:
        print(dumps(gate_json(run, rules, config, down)))
        return 1 if failed else 0
    print(f"calibration gate for {run.judge.name} ({short(config)}):")
    print(f"  {run.judge.calls} calls, {unscored_line(run.unscored, reply.hint)}")
    if down is not None:
        print(f"  the judge is {down}")
    for rule in rules:
        print(f"  {'pass' if rule.passed else 'FAIL'}  {rule.name}: {rule.value} — {rule.limit}")
    print(f"{'FAILED' if failed else 'passed'}: {len(rules) - failed} of {len(rules)} rules")
    return 1 if failed else 0
