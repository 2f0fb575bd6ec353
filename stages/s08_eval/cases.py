"""Cases, and the trajectories they produce when the stage-7 agent runs them.

A case says what the customer asks, what a correct reply says, which tools the agent should
call in which order, the step budget, and the scripted model conversation. The trajectory
comes from running the agent, and so does whether the case is an *edge case*: the author's
`label` is a guess written before the run, reported and never used.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fakes.scripted_model import ScriptedModel, parse_script
from stages.s01_model.cli import FIXTURES
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import load_json
from stages.s06_resilience.resilience import Resilience
from stages.s07_tracing.agent import Trajectory, run

CASES_FILE = FIXTURES / "cases.json"
# The step kinds that make a run an edge case, whatever its label says.
EDGE_KINDS = frozenset(
    {"tool_error", "unknown_tool", "bad_arguments", "run_limit", "no_answer"}  # something broke
    | {"refusal", "blocked", "secret_refused"}  # the agent declined, as it should
)
# Short deadlines keep the report quick; no verdict depends on them.
HARNESS_RESILIENCE = Resilience(timeout_s=0.1, attempts=2, backoff_s=0.01)
# Every field a case must have, and its type in the file.
FIELDS = dict(
    id=str, task=str, expected_answer=str, expected_tools=list, step_budget=int, script=list
)


@dataclass(frozen=True)
class Case:
    id: str
    task: str
    expected_answer: str  # the reference: what a correct reply says (a refusal where due)
    expected_tools: tuple[str, ...]
    step_budget: int
    script: tuple[dict[str, Any], ...]
    approve: bool = False  # whether the customer confirms side-effecting calls
    label: str | None = None  # the author's guess ("edge" or "normal"); never used to classify
    source: str = ""


@dataclass(frozen=True)
class CaseRun:
    case: Case
    trajectory: Trajectory
    script_finished: bool = True  # False when steps of the script were never played

    @property
    def edge_signals(self) -> list[str]:
        """The edge kinds found in the trajectory, in the order they happened, each once."""
        return list(dict.fromkeys(k for k in self.trajectory.kinds if k in EDGE_KINDS))

    @property
    def edge(self) -> bool:
        return bool(self.edge_signals)


def load_cases(path: Path = CASES_FILE) -> list[Case]:
    """Read and check the case file: every field present with its type, none unknown, a budget,
    a new id, a script that parses. Every problem names the file and the case."""
    data = load_json(path)
    if not isinstance(data, list):
        raise CourseInputError(f"{path}: expected a list of cases, got {type(data).__name__}")
    cases: list[Case] = []
    for number, raw in enumerate(data, start=1):
        where = f"{path}: case {number}"
        if not isinstance(raw, dict):
            raise CourseInputError(f"{where}: expected an object, got {raw!r}")
        if isinstance(raw.get("id"), str):
            where = f"{path}: case {raw['id']!r}"
        for key, kind in FIELDS.items():
            if key not in raw:
                raise CourseInputError(f"{where}: missing {key!r}")
            if not isinstance(raw[key], kind) or isinstance(raw[key], bool):
                raise CourseInputError(f"{where}: {key} must be {kind.__name__}, got {raw[key]!r}")
        extra = set(raw) - set(FIELDS) - {"approve", "label"}
        if extra:
            raise CourseInputError(f"{where}: unknown key {sorted(extra)[0]!r}")
        if raw["step_budget"] < 1:
            raise CourseInputError(f"{where}: step_budget must be at least 1")
        if raw["id"] in {case.id for case in cases}:
            raise CourseInputError(f"{where}: the id is used twice")
        parse_script({"task": raw["task"], "steps": raw["script"]}, where)
        tools = tuple(str(tool) for tool in raw["expected_tools"])
        fields = {"expected_tools": tools, "script": tuple(raw["script"]), "source": where}
        cases.append(Case(**{**raw, **fields, "approve": bool(raw.get("approve"))}))
    return cases


def run_case(case: Case) -> CaseRun:
    """Run the stage-7 agent on the case's scripted conversation."""
    script = parse_script({"task": case.task, "steps": list(case.script)}, case.source)
    model = ScriptedModel(script)
    trajectory = run(
        case.task,
        model,
        approve=lambda call: case.approve,
        max_steps=case.step_budget,
        resilience=HARNESS_RESILIENCE,  # pragma: no mutate (deadlines change speed, not verdicts)
        run_id=f"case-{case.id}",
    )
    return CaseRun(case, trajectory, model.finished)
