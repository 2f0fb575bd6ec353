"""The shop behind the tools: orders, carriers and returns, loaded from fixtures/shop.json.

Carriers behave in one of three documented ways: `ok` answers at once; `flaky` refuses the
first `fails_first` connections and then answers; `hangs` blocks for `hang_seconds` and then
gives up with a TimeoutError. The flaky and hanging carriers misbehave on purpose, so that
the agent meets real failures.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from stages.s01_model.cli import FIXTURES
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import load_json

SHOP_FILE = FIXTURES / "shop.json"
STATUSES = ("processing", "shipped", "delivered", "cancelled")
BEHAVIOURS = ("ok", "flaky", "hangs")
RETURN_WINDOW_DAYS = 30


@dataclass(frozen=True)
class Carrier:
    name: str
    behaviour: str
    days: int
    fails_first: int = 0
    hang_seconds: float = 0.0


@dataclass(frozen=True)
class Order:
    id: str
    status: str
    placed: date
    carrier: str
    items: tuple[str, ...]
    delivered: date | None = None


@dataclass
class Shop:
    """The shop's state. Returns started by the agent are the one thing that changes."""

    today: date
    carriers: dict[str, Carrier]
    orders: dict[str, Order]
    returns: list[str] = field(default_factory=list)
    connections: dict[str, int] = field(default_factory=dict)  # attempts per carrier

    def reach_carrier(self, name: str) -> Carrier:
        """Contact a carrier's tracking service, which behaves as its fixture says."""
        carrier = self.carriers[name]
        self.connections[name] = self.connections.get(name, 0) + 1
        if carrier.behaviour == "flaky" and self.connections[name] <= carrier.fails_first:
            raise ConnectionError(f"{name} tracking refused the connection")
        if carrier.behaviour == "hangs":
            time.sleep(carrier.hang_seconds)
            raise TimeoutError(f"{name} tracking did not answer within {carrier.hang_seconds} s")
        return carrier


def load_shop(path: Path = SHOP_FILE) -> Shop:
    """Read and check the shop fixture; every problem names the file and the key."""
    data = load_json(path)
    where = str(path)
    today = _date(_field(data, "today", str, where), f"{where}: today")
    carriers = {
        name: _carrier(name, raw, f"{where}: carriers.{name}")
        for name, raw in _field(data, "carriers", dict, where).items()
    }
    orders = {
        order_id: _order(order_id, raw, f"{where}: orders.{order_id}", carriers)
        for order_id, raw in _field(data, "orders", dict, where).items()
    }
    return Shop(today, carriers, orders)


def _field(raw: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(raw, dict):
        raise CourseInputError(f"{where}: expected an object, got {raw!r}")
    if key not in raw:
        raise CourseInputError(f"{where}: missing {key!r}")
    value = raw[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        kinds = kind if isinstance(kind, tuple) else (kind,)
        expected = " or ".join(k.__name__ for k in kinds)
        raise CourseInputError(f"{where}.{key}: expected {expected}, got {value!r}")
    return value


def _date(text: str, where: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CourseInputError(f"{where}: {text!r} is not a date (YYYY-MM-DD)") from None


def _one_of(value: str, allowed: tuple[str, ...], where: str) -> str:
    if value not in allowed:
        raise CourseInputError(f"{where}: {value!r} is not one of {', '.join(allowed)}")
    return value


def _carrier(name: str, raw: Any, where: str) -> Carrier:
    behaviour = _one_of(_field(raw, "behaviour", str, where), BEHAVIOURS, f"{where}.behaviour")
    return Carrier(
        name=name,
        behaviour=behaviour,
        days=_field(raw, "days", int, where),
        fails_first=_field(raw, "fails_first", int, where) if behaviour == "flaky" else 0,
        hang_seconds=float(_field(raw, "hang_seconds", (int, float), where))
        if behaviour == "hangs"
        else 0.0,
    )


def _order(order_id: str, raw: Any, where: str, carriers: dict[str, Carrier]) -> Order:
    status = _one_of(_field(raw, "status", str, where), STATUSES, f"{where}.status")
    carrier = _one_of(_field(raw, "carrier", str, where), tuple(carriers), f"{where}.carrier")
    items = _field(raw, "items", list, where)
    delivered = None
    if status == "delivered":
        delivered = _date(_field(raw, "delivered", str, where), f"{where}.delivered")
    return Order(
        id=order_id,
        status=status,
        placed=_date(_field(raw, "placed", str, where), f"{where}.placed"),
        carrier=carrier,
        items=tuple(str(item) for item in items),
        delivered=delivered,
    )
