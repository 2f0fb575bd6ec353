"""The exercise manifest (mutations/exercises.toml) read as data: one planted bug an entry.

An entry plants one bug, an exact find/replace in one file, and names the check it must turn
red. The keys every entry has are KEYS; `kind` is "predict" (the default) or "write"; a
predict entry may list `also`, other checks that honestly name the same failure (a prediction
of one of them is right too: never a check that holds a whole output to a saved copy); a write
entry has a `second_hint`, shown once a written check has not caught the bug yet.

A write exercise's check is a stub at its tag: its function does nothing but `pytest.skip`,
until the student writes it. `is_stub` tells the two apart by the function's body, not by what
the file imports, so a check the student wrote is a check like any other.
"""

from __future__ import annotations

import ast
import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: make the course importable

from scripts.course import Course  # noqa: E402
from stages.s01_model.errors import CourseInputError  # noqa: E402
from stages.s01_model.files import load_toml  # noqa: E402

MANIFEST = ROOT / "mutations" / "exercises.toml"
KEYS = ("id", "stage", "file", "find", "replace", "check", "hint", "why")
KINDS = ("predict", "write")  # `kind` may be left out: predict
OPTIONAL = {"kind", "also", "second_hint"}


@dataclass(frozen=True)
class Exercise:
    id: str
    stage: int
    file: str
    find: str
    replace: str
    check: str
    hint: str
    why: str
    kind: str = "predict"
    also: tuple[str, ...] = ()  # other checks that name this failure (predict only)
    second_hint: str = ""  # a write exercise's second hint

    @property
    def own(self) -> tuple[str, ...]:
        """The checks a right prediction may name: the claimed one, and those it lists."""
        return (self.check, *self.also)

    @property
    def check_file(self) -> str:
        return self.check.split("::", 1)[0]


def load_manifest(path: Path = MANIFEST) -> list[Exercise]:
    """Every entry, in file order; a missing, unknown or wrong key names the entry."""
    data = load_toml(path)
    exercises: list[Exercise] = []
    for number, raw in enumerate(data.get("exercise", []), start=1):
        where = f"{path}: exercise {raw.get('id', number)!r}"
        missing = [key for key in KEYS if key not in raw]
        if missing:
            raise CourseInputError(f"{where}: missing {missing[0]!r}")
        extra = set(raw) - {*KEYS, *OPTIONAL}
        if extra:
            raise CourseInputError(f"{where}: unknown key {sorted(extra)[0]!r}")
        if raw["id"] in {exercise.id for exercise in exercises}:
            raise CourseInputError(f"{where}: the id is used twice")
        kind = raw.get("kind", "predict")
        if kind not in KINDS:
            raise CourseInputError(f"{where}: kind {kind!r}; known: {', '.join(KINDS)}")
        also = raw.get("also", [])
        if not isinstance(also, list) or not all(isinstance(node, str) for node in also):
            raise CourseInputError(f"{where}: also must be a list of check names, got {also!r}")
        if also and kind != "predict":
            raise CourseInputError(f"{where}: only a predict exercise lists `also`")
        if kind == "write" and not raw.get("second_hint"):
            raise CourseInputError(f"{where}: a write exercise needs a second_hint")
        exercises.append(
            Exercise(
                **{key: raw[key] for key in KEYS},
                kind=kind,
                also=tuple(also),
                second_hint=raw.get("second_hint", ""),
            )
        )
    return exercises


def belongs(node: str, check: str) -> bool:
    """Whether a test result is the claimed check, or one parameter of it."""
    return node == check or node.startswith(check + "[")


def claimed(results: dict[str, str], check: str) -> list[str]:
    """The states of the claimed check's results (one per parameter)."""
    return [state for node, state in results.items() if belongs(node, check)]


def plant(tree: Path, exercise: Exercise) -> str | None:
    """Apply the exercise's replacement in `tree`; return why it cannot be planted, or None."""
    target = tree / exercise.file
    if not target.is_file():
        return f"no file {exercise.file}"
    text = target.read_text(encoding="utf-8")
    found = text.count(exercise.find)
    if found != 1:
        return f"anchor found {found} times in {exercise.file}, expected exactly once"
    mutated = text.replace(exercise.find, exercise.replace)
    if mutated == text:
        return "the replacement changes nothing"
    try:
        compile(mutated, exercise.file, "exec")
    except SyntaxError as error:
        return f"the mutated file does not compile: {error.msg} (line {error.lineno})"
    target.write_text(mutated, encoding="utf-8")
    for compiled in (target.parent / "__pycache__").glob(f"{target.stem}.*.pyc"):
        compiled.unlink()  # copied with the tree: never let it stand for the planted source
    return None


def function(text: str, name: str) -> ast.FunctionDef | None:
    """The module-level function `name` in a module's text, or None (a SyntaxError if the
    text does not parse)."""
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    return None


def is_stub(exercise: Exercise, root: Path = ROOT) -> bool:
    """Whether a write exercise's check is still the stub its tag gives: a function whose body
    (its docstring aside) is one call of pytest.skip. A check the student wrote, whatever it
    imports, is not; nor is a file that does not parse (the proof then says why)."""
    path = root / exercise.check_file
    try:
        found = function(path.read_text(encoding="utf-8"), exercise.check.split("::")[1])
    except (OSError, SyntaxError, ValueError):
        return False
    if found is None:
        return False
    body = found.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    if len(body) != 1 or not isinstance(body[0], ast.Expr):
        return False
    call = body[0].value
    return isinstance(call, ast.Call) and ast.unparse(call.func) == "pytest.skip"


def planted_in(exercise: Exercise, root: Path = ROOT) -> str:
    """The code the bug is planted in: the innermost function or class that holds the anchor,
    or the whole file when the anchor is outside any; a marker when the anchor is gone."""
    path = root / exercise.file
    if not path.is_file():
        return "<no file>"
    text = path.read_text(encoding="utf-8")
    offset = text.find(exercise.find)
    if offset < 0:
        return "<no anchor>"
    first = text.count("\n", 0, offset) + 1
    last = first + exercise.find.count("\n")
    around, span = text, None
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        end = node.end_lineno or node.lineno
        inner = span is None or end - node.lineno < span
        if node.lineno <= first and last <= end and inner:
            span, around = end - node.lineno, ast.get_source_segment(text, node) or text
    return around


def fingerprint(exercise: Exercise, root: Path = ROOT) -> str:
    """What a credit is earned on: the exercise's bug and check, and the code the bug is
    planted in. It changes when either really changes; not when another part of the file
    does, nor when a tag adds code elsewhere, nor when the student edits their own check."""
    entry = {key: getattr(exercise, key) for key in ("id", "kind", "file", "find", "replace")}
    entry["check"] = exercise.check
    digest = hashlib.sha256(json.dumps(entry, sort_keys=True).encode())
    digest.update(planted_in(exercise, root).encode())
    return digest.hexdigest()


def misplaced(exercises: list[Exercise], course: Course) -> list[str]:
    """Exercises whose `stage` is not the stage that brings the file they mutate, or whose
    checks belong to a later stage than theirs: at that stage's tag, one of them is missing."""
    found = []
    for exercise in exercises:
        brought_by = course.owner(exercise.file)
        if brought_by != exercise.stage:
            found.append(f"{exercise.id}: stage {exercise.stage}, but {exercise.file} "
                         f"comes with stage {brought_by}")  # fmt: skip
            continue
        for check in exercise.own:
            checked_by = course.owner(check.split("::", 1)[0])
            if checked_by is None or checked_by > exercise.stage:
                found.append(f"{exercise.id}: its check comes with stage {checked_by}")
    return found


def select(exercises: list[Exercise], ids: list[str], stage: int | None) -> list[Exercise]:
    """The exercises named (all when none is), of one stage when `stage` is given."""
    unknown = sorted(set(ids) - {exercise.id for exercise in exercises})
    if unknown:
        raise CourseInputError(f"no exercise {unknown[0]!r} in {MANIFEST.relative_to(ROOT)}")
    chosen = [e for e in exercises if not ids or e.id in ids]
    return [e for e in chosen if stage is None or e.stage == stage]
