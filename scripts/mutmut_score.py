"""Read a finished mutmut sweep (`mutants/**/*.meta`), print its score and its survivors.

The score is the share of mutants that some check caught: killed (exit 1 or 3) or timed out
(36, or -24 when mutmut stops a mutant with SIGXCPU: a mutant that hangs the checks is caught
too). Survivors (0) and mutants no check reaches (33) count against it. Mutants not run
(null) mean the sweep did not finish, and then nothing is written; otherwise the summary goes
to mutations/mutmut_score.json, which the stage-8 README quotes and a check compares.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCORE_FILE = ROOT / "mutations" / "mutmut_score.json"
STATUS = {
    1: "killed",
    3: "killed",
    36: "timeout",
    -24: "timeout",
    0: "survived",
    33: "no tests",
    None: "not run",
}


def main() -> int:
    metas = sorted((ROOT / "mutants").rglob("*.meta"))
    if not metas:
        print("error: no mutants/**/*.meta: run `make mutmut` first", file=sys.stderr)
        return 2
    status: dict[str, str] = {}
    for meta in metas:
        for name, code in json.loads(meta.read_text())["exit_code_by_key"].items():
            status[name] = STATUS.get(code, f"exit {code}")
    counts = Counter(status.values())
    total = sum(counts.values())
    caught = counts["killed"] + counts["timeout"]
    score = round(100 * caught / total, 1) if total else 0.0
    survivors = sorted(n for n, s in status.items() if s in ("survived", "no tests"))
    summary = {
        "total": total,
        "caught": caught,
        "score_percent": score,
        "counts": dict(sorted(counts.items())),
        "survivors": survivors,
    }
    print(f"mutmut: {caught} of {total} mutants caught ({score}%)")
    if counts["not run"]:
        # A sweep that stopped early (mutmut refuses to start when a check fails on the
        # unmutated code) is no record of anything: keep the last complete one.
        print(f"error: {counts['not run']} mutants were not run; {SCORE_FILE.name} is unchanged")
        return 1
    SCORE_FILE.write_text(json.dumps(summary, indent=2) + "\n")
    print("  " + ", ".join(f"{state} {n}" for state, n in sorted(counts.items())))
    for name in survivors:
        print(f"  survivor ({status[name]}): {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
