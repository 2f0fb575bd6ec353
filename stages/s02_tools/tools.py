"""Tools, and the gate every call passes first: is there such a tool, are the arguments right?

A model can ask for a tool that does not exist or pass arguments of the wrong shape. Neither
is allowed to crash the agent or to reach the tool: both come back as an observation the
model can read and correct. What the tool itself does when it runs is not this gate's
business.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from stages.s01_model.model import Name, ToolCall
from stages.s02_tools.shop import RETURN_WINDOW_DAYS, Shop


class Outcome(Name):
    """What came back from asking for a tool."""

    RESULT = "tool_result"  # the tool ran and returned text
    UNKNOWN_TOOL = "unknown_tool"  # no tool by that name; nothing ran
    BAD_ARGUMENTS = "bad_arguments"  # arguments did not match the parameters; nothing ran


@dataclass(frozen=True)
class Observation:
    """What the agent feeds back to the model after a tool call."""

    kind: str
    text: str


@dataclass(frozen=True)
class Tool:
    """A named function with typed parameters. `side_effect` marks tools that change things."""

    name: str
    description: str
    params: Mapping[str, type]
    run: Callable[..., str]
    side_effect: bool = False


class ToolBox:
    """The tools an agent may call, looked up by name."""

    def __init__(self, tools: list[Tool]) -> None:
        self.tools = {tool.name: tool for tool in tools}

    def with_tool(self, tool: Tool) -> ToolBox:
        """A new toolbox with one more tool (or one replaced)."""
        return ToolBox([*self.tools.values(), tool])

    def check(self, call: ToolCall) -> Observation | None:
        """Why this call must not run, or None when it may."""
        tool = self.tools.get(call.name)
        if tool is None:
            known = ", ".join(sorted(self.tools))
            return Observation(Outcome.UNKNOWN_TOOL, f"no tool {call.name!r}; known: {known}")
        problems = argument_problems(call.arguments, tool.params)
        if problems:
            return Observation(Outcome.BAD_ARGUMENTS, f"{call.name}: " + "; ".join(problems))
        return None

    def invoke(self, call: ToolCall) -> str:
        """Run a call that passed `check`. Whatever the tool raises, the caller receives."""
        return self.tools[call.name].run(**call.arguments)

    def call(self, call: ToolCall) -> Observation:
        """Check, then run."""
        refused = self.check(call)
        if refused is not None:
            return refused
        return Observation(Outcome.RESULT, self.invoke(call))


def argument_problems(arguments: Mapping[str, Any], params: Mapping[str, type]) -> list[str]:
    """Every way the arguments miss the parameters: missing, unexpected, or of the wrong type."""
    problems = [f"missing argument {name!r}" for name in params if name not in arguments]
    for name, value in arguments.items():
        expected = params.get(name)
        if expected is None:
            problems.append(f"unexpected argument {name!r}")
        elif not isinstance(value, expected) or isinstance(value, bool) != (expected is bool):
            problems.append(
                f"argument {name!r} must be {expected.__name__}, got {type(value).__name__} "
                f"{value!r}"
            )
    return problems


def order_status(shop: Shop, order_id: str) -> str:
    order = shop.orders.get(order_id)
    if order is None:
        return f"No order {order_id} in the shop."
    items = ", ".join(order.items)
    return (
        f"Order {order.id}: {order.status} (placed {order.placed}, carrier {order.carrier}):"
        f" {items}."
    )


def delivery_estimate(shop: Shop, order_id: str) -> str:
    order = shop.orders.get(order_id)
    if order is None:
        return f"No order {order_id} in the shop."
    if order.status == "delivered":
        return f"Order {order.id} was delivered on {order.delivered}."
    if order.status == "cancelled":
        return f"Order {order.id} was cancelled; nothing will be delivered."
    if order.status == "processing":
        return f"Order {order.id} has not shipped yet; no estimate until it does."
    carrier = shop.reach_carrier(order.carrier)
    days = f"{carrier.days} business day" + ("" if carrier.days == 1 else "s")
    return f"Order {order.id} should arrive within {days} ({carrier.name})."


def start_return(shop: Shop, order_id: str, reason: str) -> str:
    order = shop.orders.get(order_id)
    if order is None:
        return f"No order {order_id} in the shop."
    if order.delivered is None:
        return f"Order {order.id} is {order.status}; a return can start once it is delivered."
    if order.id in shop.returns:
        return f"A return for order {order.id} is already open (R-{order.id})."
    age = (shop.today - order.delivered).days
    if age > RETURN_WINDOW_DAYS:
        return (
            f"Order {order.id} was delivered {age} days ago; returns close after "
            f"{RETURN_WINDOW_DAYS} days."
        )
    shop.returns.append(order.id)
    return f"Return R-{order.id} started for order {order.id} (reason: {reason})."


def shop_tools(shop: Shop) -> ToolBox:
    """The three shop tools above, each bound to one shop: the model passes the rest."""
    order = {"order_id": str}
    return ToolBox(
        [
            Tool("order_status", "Where an order is.", order, partial(order_status, shop)),
            Tool(
                "delivery_estimate",
                "When a shipped order should arrive.",
                order,
                partial(delivery_estimate, shop),
            ),
            Tool(
                "start_return",
                "Start a return for a delivered order.",
                {**order, "reason": str},
                partial(start_return, shop),
                side_effect=True,
            ),
        ]
    )
