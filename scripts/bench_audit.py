"""Benchmark stage 14's audit on a large file (a benchmark, not a timed test).

    python scripts/bench_audit.py [--rows N] [--labelled N]

`audit` on an N-row CSV (default 1,000,000) written to a temporary folder, people's labels on
the first --labelled rows (default 10,000; the rest blank), so that every measure and the
pass rate four ways are computed (Rogan-Gladen with 2,000 resamples). Goals: under 15 s and
a peak memory under 300 MB (the audit runs in its own process; its peak resident size is
read from the operating system when it ends).
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def write_scores(path: Path, rows: int, labelled: int) -> None:
    """A file of judge scores that climb with length, and on the first `labelled` rows a
    person's score that agrees with the judge's give or take three points."""
    rng = random.Random(2)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "answer_length", "score", "human"])
        for n in range(rows):
            length = rng.randint(20, 900)
            score = min(10, length // 120 + rng.randint(0, 3))
            human = max(1, min(10, score + rng.randint(-3, 2))) if n < labelled else ""
            writer.writerow([n, length, score, human])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--labelled", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "scores.csv"
        write_scores(path, args.rows, args.labelled)
        size = path.stat().st_size / 1e6
        command = [sys.executable, "-m", "stages.s14_audit", str(path), "--json"]
        command += ["--length-col", "answer_length", "--human-col", "human", "--out-dir", folder]
        started = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        if done.returncode:
            print(done.stdout[-2000:], done.stderr[-2000:], sep="\n")
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB -> MiB
    print(f"audit, {args.rows:,} rows ({size:.0f} MB CSV), {args.labelled:,} labelled: "
          f"{elapsed:.1f} s, peak {peak:.0f} MiB, exit {done.returncode}")  # fmt: skip
    if not done.returncode:
        for estimate in json.loads(done.stdout)["pass_rate"]["estimates"]:
            shown = estimate["ci"] or estimate["reason"]
            print(f"  {estimate['method']}: {estimate['value']} {shown}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
