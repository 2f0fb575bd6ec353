"""Benchmark stage 17's windows over many large files (a benchmark, not a timed test).

    python scripts/bench_windows.py [--files N] [--scores M]

`windows --json` over N CSV files of M scores each (defaults 50 and 100,000), written to a
temporary folder and seeded: each score is the passes of 10 tries (0 to 10, a judge's few
values), at a pass rate that creeps up by 0.001 a file, so that the first and last files are
a shift apart and neighbours are not. Goals: under 60 s and a peak memory under 500 MB on two
cores (the command runs in its own process; its CPU time and peak resident size are read from
the operating system when it ends).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
TRIES, RATE, CREEP = 10, 0.6, 0.001  # each score: passes of TRIES; file k's rate RATE + k*CREEP


def write_windows(folder: Path, files: int, scores: int) -> list[Path]:
    """`files` CSV files of `scores` scores each, oldest first."""
    rng = np.random.default_rng(17)
    paths = []
    for k in range(files):
        path = folder / f"week{k + 1:03d}.csv"
        drawn = rng.binomial(TRIES, RATE + k * CREEP, scores)
        path.write_text("score\n" + "\n".join(map(str, drawn.tolist())) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=50)
    parser.add_argument("--scores", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        paths = write_windows(Path(folder), args.files, args.scores)
        command = [sys.executable, "-m", "stages.s17_windows", *map(str, paths), "--json"]
        started = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        elapsed = time.perf_counter() - started
    if done.returncode > 1:
        print(done.stdout[-2000:], done.stderr[-2000:], sep="\n")
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu, peak = used.ru_utime + used.ru_stime, used.ru_maxrss / 1024  # KiB -> MiB
    print(f"windows, {args.files} files of {args.scores:,} scores: {elapsed:.1f} s, "
          f"{cpu:.1f} s of CPU, peak {peak:.0f} MiB, exit {done.returncode}")  # fmt: skip
    if done.returncode <= 1:
        (drift,) = json.loads(done.stdout).values()
        found = sum(shift["state"] == "found" for shift in drift["shifts"])
        overall = drift["overall"] or {}
        print(f"  {found} of {len(drift['shifts'])} neighbouring shifts found; first to last: "
              f"PSI {overall.get('psi')}, p {overall.get('p_value')}")  # fmt: skip
    return 0 if done.returncode <= 1 else done.returncode


if __name__ == "__main__":
    sys.exit(main())
