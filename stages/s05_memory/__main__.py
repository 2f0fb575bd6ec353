"""Stage 5 demo: three turns of one conversation; the name sticks, the card number does not."""

from __future__ import annotations

import sys

from fakes.scripted_model import ScriptedModel, load_script
from stages.s01_model.cli import FIXTURES, TRACES, demo_parser, run_cli, short
from stages.s01_model.trace import JsonlTrace
from stages.s02_tools.shop import load_shop
from stages.s02_tools.tools import shop_tools
from stages.s03_loop.show import show
from stages.s04_retrieval.retrieval import load_policies
from stages.s05_memory.agent import MemoryAgent

LATER_TURNS = [
    "Keep my card 4111 1111 1111 1111 on file for next time.",
    "Where is my order A1003?",
]


def main() -> int:
    parser = demo_parser(
        "Remember preferences across turns; refuse secrets.",
        script=FIXTURES / "scripts" / "s05_three_turns.json",
        trace=TRACES / "s05.jsonl",
    )
    args = parser.parse_args()
    script = load_script(args.script)
    trace = JsonlTrace(args.trace)
    agent = MemoryAgent(
        ScriptedModel(script), shop_tools(load_shop()), load_policies(), trace=trace
    )
    for task in [script.task or "", *LATER_TURNS]:
        show(task, agent.run(task))
    print(f"memory: {agent.memory.describe()}")
    print(f"trace: {short(args.trace)} (+{len(trace.records)} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
