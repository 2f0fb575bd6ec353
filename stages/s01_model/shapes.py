"""Whether a value read from JSON can be a field of a dataclass, by the field's type hint.

A record read from a file may have every key it should and still hold the wrong things: a
kappa of "high", an interval of one number, a model of null. Each would fail far from the
file, as a TypeError in arithmetic. misfit() names the first such field where the record is
read, with what it holds and what it should hold; lacking() names a field it lacks, and
values() gives the fields it has.
"""

from __future__ import annotations

import json
import math
from dataclasses import MISSING, fields
from types import UnionType
from typing import Any, get_args, get_origin, get_type_hints


def misfit(kind: type[Any], data: dict[str, Any]) -> str | None:
    """The first field of `data` that `kind`'s field of that name cannot hold, as "NAME is
    VALUE, expected WHAT"; None when each one present fits (a missing one is not checked)."""
    for name, hint in get_type_hints(kind).items():
        if name in data and not fits(data[name], hint):
            return f"{name} is {shown(data[name])}, expected {spelled(hint)}"
    return None


def fits(value: Any, hint: Any) -> bool:
    """Whether a JSON value can be a field of this type: a whole number may be a float (never
    a bool), a tuple is a list of its size. Any other type (a dataclass, a closed set of
    names) is the caller's to check."""
    if isinstance(hint, UnionType):
        return any(fits(value, option) for option in get_args(hint))
    if hint is type(None):
        return value is None
    if hint in (int, float):
        number = isinstance(value, int if hint is int else (int, float))
        return number and not isinstance(value, bool) and math.isfinite(value)
    if hint in (str, bool):
        return isinstance(value, hint)
    if get_origin(hint) is tuple:
        inner = get_args(hint)
        sized = isinstance(value, list) and (inner[-1] is Ellipsis or len(value) == len(inner))
        return sized and all(fits(item, inner[0]) for item in value)
    return isinstance(value, dict) if get_origin(hint) is dict else True


def spelled(hint: Any) -> str:
    """A field's type as an error says it: "a number or null", "a list of 2 numbers"."""
    if isinstance(hint, UnionType):
        return " or ".join(spelled(option) for option in get_args(hint))
    if get_origin(hint) is tuple:
        inner = get_args(hint)
        count = "" if inner[-1] is Ellipsis else f"{len(inner)} "
        return f"a list of {count}{spelled(inner[0]).removeprefix('a ')}s"
    names = {type(None): "null", int: "a whole number", float: "a number", str: "text"}
    return {**names, bool: "true or false", dict: "an object"}.get(get_origin(hint) or hint, "?")


def shown(value: Any) -> str:
    """A value as JSON, cut to 40 characters."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def lacking(kind: type[Any], data: dict[str, Any]) -> str | None:
    """The first field of the record `kind` that a JSON object lacks, of those without a
    default; None when it has them all."""
    needed = [f.name for f in fields(kind) if f.default is MISSING]
    return next((name for name in needed if name not in data), None)


def values(kind: type[Any], data: dict[str, Any]) -> dict[str, Any]:
    """The fields of the record `kind` in a JSON object (one it lacks keeps its default), its
    lists tuples again (an interval, the scores)."""
    found = {f.name: data[f.name] for f in fields(kind) if f.name in data}
    return {name: tuple(v) if isinstance(v, list) else v for name, v in found.items()}
