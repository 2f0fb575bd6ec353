"""The console script `honest-evals`: it finds the course's folder and runs its front door.

Installed into an environment, this file is all that is copied there; the stages are read
where they are. The folder is the current one or the nearest above it that holds the course
(as `python -m` reads the stages from the current folder), else the one this file is in, when
it was installed in place (`pip install -e FOLDER`). A checkout's own door always answers, so
the verbs it lists are the ones that checkout has.
"""

from __future__ import annotations

import sys
from pathlib import Path


def course_folder() -> Path | None:
    here = Path.cwd().resolve()
    for folder in (here, *here.parents, Path(__file__).resolve().parent):
        if (folder / "toolkit" / "door.py").is_file() and (folder / "stages").is_dir():
            return folder
    return None


def main() -> int:
    folder = course_folder()
    if folder is None:
        print(
            "error: honest-evals: no course here; run it in the course's folder (or below it), "
            "or install it with pip install -e FOLDER",
            file=sys.stderr,
        )
        return 2
    # the course first, then the folder it runs in, as `python -m` has it: a judge given as
    # my_judge:make_judge is found in a file my_judge.py there
    sys.path[:0] = [str(folder), str(Path.cwd())]
    from toolkit.door import main as door

    return door(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
