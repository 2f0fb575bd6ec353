"""What the earlier stages' traces carry — measured by reading their source, not assumed.

Every stage writes trace lines by handing a dict literal to a `.write(...)` call. This module
parses each earlier stage's code with `ast`, collects the keys of those literals, and reports
the fields per stage and the stages whose lines carry no `run_id`: lines that cannot be
grouped into runs. Add a stage, or change what one writes, and the numbers change.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

STAGES_DIR = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Survey:
    stages: dict[str, list[str]]  # stage -> the fields its trace lines carry, sorted
    without_run_key: list[str]


def trace_fields(stage: Path) -> set[str]:
    """Keys of every dict literal passed to a `.write(...)` call in the stage's code."""
    keys: set[object] = set()
    for path in sorted(stage.rglob("*.py")):
        if "checks" in path.relative_to(stage).parts:
            continue
        text = path.read_text(encoding="utf-8")  # pragma: no mutate (the encoding's spelling)
        source = ast.parse(text, str(path))  # pragma: no mutate (named in syntax errors only)
        for node in ast.walk(source):
            match node:
                case ast.Call(func=ast.Attribute(attr="write"), args=[ast.Dict(keys=found), *_]):
                    keys |= {key.value for key in found if isinstance(key, ast.Constant)}
    return {key for key in keys if isinstance(key, str)}  # a key such as 2 names no field


def survey(stages_dir: Path = STAGES_DIR, before: int = 8) -> Survey:
    """Survey every stage numbered below `before` that writes a trace."""
    stages: dict[str, list[str]] = {}
    for stage in sorted(stages_dir.glob("s[0-9][0-9]_*")):
        if stage.is_dir() and int(stage.name[1:3]) < before and (fields := trace_fields(stage)):
            stages[stage.name] = sorted(fields)
    without = [name for name, fields in stages.items() if "run_id" not in fields]
    return Survey(stages, without)
