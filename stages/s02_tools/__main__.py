"""Stage 2 demo: play a script of tool calls through the toolbox, or run one call by hand.

python -m stages.s02_tools
python -m stages.s02_tools --call order_status --args '{"order_id": "A1002"}'
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from fakes.scripted_model import ScriptedModel, load_script
from stages.s01_model.cli import FIXTURES, TRACES, demo_parser, run_cli, short
from stages.s01_model.errors import CourseInputError
from stages.s01_model.model import Message, ToolCall
from stages.s01_model.trace import JsonlTrace
from stages.s02_tools.shop import SHOP_FILE, load_shop
from stages.s02_tools.tools import Outcome, shop_tools


def main() -> int:
    parser = demo_parser(
        "Run tool calls through the argument gate.",
        script=FIXTURES / "scripts" / "s02_tool_calls.json",
        trace=TRACES / "s02.jsonl",
    )
    parser.add_argument("--call", help="run this one tool instead of the script")
    parser.add_argument("--args", default="{}", help="its arguments, as a JSON object")
    parser.add_argument("--shop", type=Path, default=SHOP_FILE, help="the shop fixture")
    args = parser.parse_args()
    tools = shop_tools(load_shop(args.shop))
    if args.call:
        call = ToolCall(args.call, _json_object(args.args))
        refused = tools.check(call)
        if refused is not None:
            raise CourseInputError(f"--call/--args: {refused.text}")
        print(tools.invoke(call))
        return 0

    script = load_script(args.script)
    model = ScriptedModel(script)
    trace = JsonlTrace(args.trace)
    conversation = [Message("user", script.task or "")]
    while not model.finished:
        reply = model.respond(conversation)
        if not isinstance(reply, ToolCall):
            continue  # stage 2 has no loop yet: only the tool calls are played
        observation = tools.call(reply)
        trace.write(
            {"tool": reply.name, "args": dict(reply.arguments), "outcome": observation.kind}
        )
        marker = "ok " if observation.kind == Outcome.RESULT else "-- "
        print(f"{marker}{reply.name}({json.dumps(dict(reply.arguments))}): {observation.text}")
    print(f"trace: {short(args.trace)} (+{len(trace.records)} lines)")
    return 0


def _json_object(text: str) -> dict[str, object]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise CourseInputError(f"--args: {text!r} is not JSON ({error.msg})") from None
    if not isinstance(value, dict):
        raise CourseInputError(f"--args: expected a JSON object, got {text!r}")
    return value


if __name__ == "__main__":
    sys.exit(run_cli(main))
