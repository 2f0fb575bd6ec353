"""Stage 3 demo: two runs through the loop — one that answers, one the budget has to stop."""

from __future__ import annotations

import sys

from fakes.scripted_model import ScriptedModel, load_script
from stages.s01_model.cli import FIXTURES, TRACES, demo_parser, run_cli, short
from stages.s01_model.trace import JsonlTrace
from stages.s02_tools.shop import load_shop
from stages.s02_tools.tools import shop_tools
from stages.s03_loop.agent import Agent
from stages.s03_loop.show import show


def main() -> int:
    parser = demo_parser(
        "Run the agent loop on a scripted conversation.",
        script=FIXTURES / "scripts" / "s03_where_is_my_order.json",
        trace=TRACES / "s03.jsonl",
    )
    args = parser.parse_args()
    trace = JsonlTrace(args.trace)
    scripts = [args.script, FIXTURES / "scripts" / "s03_never_answers.json"]
    for path in scripts:
        script = load_script(path)
        agent = Agent(ScriptedModel(script), shop_tools(load_shop()), max_steps=4, trace=trace)
        show(script.task or "", agent.run(script.task or ""))
    print(f"trace: {short(args.trace)} (+{len(trace.records)} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
