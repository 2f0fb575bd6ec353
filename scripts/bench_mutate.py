"""Benchmark: the whole `make mutate` pass against one run of the whole pytest suite.

    python scripts/bench_mutate.py [--repeats N]

The goal (a benchmark, not a timed test: machines are shared and noisy) is that proving
every exercise costs at most twice one run of the suite on a warm .venv. Prints the median
of each over N runs, and the ratio. The suite is timed with and without the runner's own
checks (`-m "not runner"`), since those checks start the runner themselves.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def seconds(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    python = sys.executable
    commands = {
        "pytest suite": [python, "-m", "pytest", "-q"],
        "pytest suite, not runner": [python, "-m", "pytest", "-q", "-m", "not runner"],
        "mutate": [python, "scripts/mutate.py"],
    }
    medians = {}
    for name, command in commands.items():
        runs = [seconds(command) for _ in range(args.repeats)]
        medians[name] = statistics.median(runs)
        print(f"{name:<26} median {medians[name]:6.1f} s  ({', '.join(f'{r:.1f}' for r in runs)})")
    for suite in ("pytest suite", "pytest suite, not runner"):
        print(f"mutate / {suite}: {medians['mutate'] / medians[suite]:.2f} (goal: at most 2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
