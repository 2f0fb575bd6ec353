"""Stage 7 demo: five runs into one trace file, then the file split back into its runs.

One run answers; the other four each meet one fault the scripted model injects, and each
fault leaves its own kind of step: tool_error, unknown_tool, run_limit, no_answer.
"""

from __future__ import annotations

import sys
from typing import Any

from fakes.scripted_model import ScriptedModel, load_script
from stages.s01_model.cli import FIXTURES, TRACES, demo_parser, run_cli, short
from stages.s06_resilience.resilience import Resilience
from stages.s07_tracing.agent import run
from stages.s07_tracing.tracer import read_trace

FAULTS: list[tuple[str, list[dict[str, Any]]]] = [
    ("When will order A1009 arrive?", [{"fault": "tool_timeout"}, {"answer": "Unknown yet."}]),
    ("Refund my order A1002 now.", [{"fault": "unknown_tool"}, {"answer": "I can't do that."}]),
    (
        "Is order A1008 on its way?",
        [{"fault": "never_answers", "call": "order_status", "args": {"order_id": "A1008"}}],
    ),
    ("Can you help me?", [{"fault": "empty_reply"}]),
]


def main() -> int:
    parser = demo_parser(
        "Trace runs with run ids and read them back.",
        script=FIXTURES / "scripts" / "s03_where_is_my_order.json",
        trace=TRACES / "s07.jsonl",
    )
    args = parser.parse_args()
    args.trace.unlink(missing_ok=True)
    script = load_script(args.script)
    models = [(script.task or "", ScriptedModel(script))]
    models += [(task, ScriptedModel.from_steps(steps, task)) for task, steps in FAULTS]
    quick = Resilience(timeout_s=0.1, attempts=2, backoff_s=0.01)
    for task, model in models:
        trajectory = run(task, model, max_steps=4, resilience=quick, trace_path=args.trace)
        print(f"run {trajectory.run_id}: {task}")
        print(f"  kinds:   {' -> '.join(trajectory.kinds)}")
        print(f"  stopped: {trajectory.stopped}; answer: {trajectory.answer!r}")
    runs = read_trace(args.trace)
    lines = sum(len(steps) for steps in runs.values())
    print(f"trace: {short(args.trace)}: {lines} lines, split back into {len(runs)} runs")
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
