"""Stage 4 demo: a policy question the corpus answers, and one it does not."""

from __future__ import annotations

import sys

from fakes.scripted_model import ScriptedModel, load_script
from stages.s01_model.cli import FIXTURES, TRACES, demo_parser, run_cli, short
from stages.s01_model.trace import JsonlTrace
from stages.s02_tools.shop import load_shop
from stages.s02_tools.tools import shop_tools
from stages.s03_loop.show import show
from stages.s04_retrieval.agent import GroundedAgent
from stages.s04_retrieval.retrieval import load_policies


def main() -> int:
    parser = demo_parser(
        "Answer policy questions from the corpus, or refuse.",
        script=FIXTURES / "scripts" / "s04_policy_questions.json",
        trace=TRACES / "s04.jsonl",
    )
    args = parser.parse_args()
    trace = JsonlTrace(args.trace)
    policies = load_policies()
    for path in [args.script, FIXTURES / "scripts" / "s04_not_in_policy.json"]:
        script = load_script(path)
        agent = GroundedAgent(ScriptedModel(script), shop_tools(load_shop()), policies, trace=trace)
        show(script.task or "", agent.run(script.task or ""))
    print(f"trace: {short(args.trace)} (+{len(trace.records)} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
