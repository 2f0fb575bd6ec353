"""Stage 9: noise is not bias. Twins, repeats, intervals, both orders, self-preference.

    python -m stages.s09_calibration [report] [--judge SPEC] [--json] [--plots DIR] [--repeats N]
                                              [--out FILE]

The judge (default: the biased fake) and the steady control are measured side by side on the
calibration set and its twins, each text scored --repeats times.

Exit status: 0 when every measure was evaluated; 1 when one was not (too little usable data);
2 for bad input (an unknown SPEC, a repeat count below 1, a file not readable or writable).
"""

from __future__ import annotations

import sys

from stages.s01_model.cli import ROOT, Parser, run_cli, short
from stages.s01_model.files import folder, writable
from stages.s08_eval.commands import emit, status
from stages.s08_eval.judge import CountingJudge
from stages.s08_eval.specs import SPECS, JudgeChoice, resolve
from stages.s09_calibration.calibrate import SEED, Asking, calibrate
from stages.s09_calibration.calibration import load_calibration
from stages.s09_calibration.commands import add_report, parse, written
from stages.s09_calibration.report import Report, Side, render, to_json
from stages.s09_calibration.twins import load_twins

REPORT_FILE = ROOT / "reports" / "s09_calibration.json"
PROG = "python -m stages.s09_calibration"


def main(argv: list[str] | None = None, prog: str = PROG, name: str = "report") -> int:
    """The command; `name` is what its report goes by (the front door calls it calibrate)."""
    found = Parser(prog=prog, description="Calibrate a judge: noise or bias?")
    commands = found.add_subparsers(dest="command", required=True)
    report = add_report(commands, name, SPECS, REPORT_FILE)
    args = parse(found, {name: report}, sys.argv[1:] if argv is None else argv)
    chosen = resolve(args.judge)
    out, plots = writable(args.out, "--out"), folder(args.plots, "--plots")
    measured = measure_report(chosen, resolve("steady"), args.repeats)
    emit(to_json(measured), "\n".join(render(measured)), args.json, out)
    if plots is not None:
        from stages.s09_calibration.plots import draw  # matplotlib loads only when asked

        written(draw(measured.judge.run, plots, SEED), "plot")
    print(f"report written to {short(out)}", file=sys.stderr)
    return status(measured.not_successful)


def measure_report(chosen: JudgeChoice, control: JudgeChoice, repeats: int) -> Report:
    """Measure the judge and the steady control on the same cases, asked the same way."""
    cases = load_calibration()
    twins = load_twins(cases)

    def side(choice: JudgeChoice) -> Side:
        run = calibrate(CountingJudge(choice.judge, choice.name), cases, twins, repeats=repeats)
        return Side(run, Asking(), run.judge.calls)

    return Report(side(chosen), side(control))


if __name__ == "__main__":
    sys.exit(run_cli(main))
