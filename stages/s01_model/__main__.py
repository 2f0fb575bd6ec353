"""Stage 1 demo: one question, one model call, one reply, two trace lines."""

from __future__ import annotations

import sys

from fakes.scripted_model import ScriptedModel, load_script
from stages.s01_model.cli import FIXTURES, TRACES, demo_parser, run_cli, short
from stages.s01_model.model import Answer, ask
from stages.s01_model.trace import JsonlTrace


def main() -> int:
    parser = demo_parser(
        "Ask the scripted model one question.",
        script=FIXTURES / "scripts" / "s01_opening_hours.json",
        trace=TRACES / "s01.jsonl",
    )
    args = parser.parse_args()
    script = load_script(args.script)
    question = script.task or "Hello?"
    reply = ask(ScriptedModel(script), question)
    trace = JsonlTrace(args.trace)
    trace.write({"role": "user", "content": question})
    shown = reply.text if isinstance(reply, Answer) else f"(asks for tool {reply.name})"
    trace.write({"role": "assistant", "content": shown})
    print(f"user:      {question}")
    print(f"assistant: {shown}")
    print(f"trace:     {short(args.trace)} (+2 lines)")
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
