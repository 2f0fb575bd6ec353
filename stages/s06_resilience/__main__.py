"""Stage 6 demo: a flaky carrier, a hanging one, and a return that waits for a yes."""

from __future__ import annotations

import sys

from fakes.scripted_model import ScriptedModel, load_script
from stages.s01_model.cli import FIXTURES, TRACES, demo_parser, run_cli, short
from stages.s01_model.model import ToolCall
from stages.s01_model.trace import JsonlTrace
from stages.s02_tools.shop import load_shop
from stages.s02_tools.tools import shop_tools
from stages.s03_loop.show import show
from stages.s04_retrieval.retrieval import load_policies
from stages.s06_resilience.agent import ResilientAgent

LATER_TURNS = [
    "And order A1009?",
    "Please start a return for A1002, the blanket is too small.",
]
CONFIRMATION = "Yes, I confirm: return A1002."


def main() -> int:
    parser = demo_parser(
        "Survive slow and failing tools; ask before changing anything.",
        script=FIXTURES / "scripts" / "s06_rough_day.json",
        trace=TRACES / "s06.jsonl",
    )
    args = parser.parse_args()
    script = load_script(args.script)
    trace = JsonlTrace(args.trace)
    shop = load_shop()
    agent = ResilientAgent(ScriptedModel(script), shop_tools(shop), load_policies(), trace=trace)
    for task in [script.task or "", *LATER_TURNS]:
        show(task, agent.run(task))
    agent.approve = confirmed_by_customer
    show(CONFIRMATION, agent.run(CONFIRMATION))
    print(f"returns started: {shop.returns}")
    print(f"trace: {short(args.trace)} (+{len(trace.records)} lines)")
    return 0


def confirmed_by_customer(call: ToolCall) -> bool:
    """The customer said yes to exactly this return."""
    return call.name == "start_return" and call.arguments.get("order_id") == "A1002"


if __name__ == "__main__":
    sys.exit(run_cli(main))
