"""Benchmark stage 11's `audit` on a large file (a benchmark, not a timed test).

    python scripts/bench_audit.py [--rows N]

`audit` on an N-row CSV (default 1,000,000) written to a temporary folder: goal under 30 s
and a peak memory under 300 MB (the audit runs in its own process; its peak resident size
is read from the operating system when it ends).
"""

from __future__ import annotations

import argparse
import csv
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def write_scores(path: Path, rows: int) -> None:
    """A file of judge scores that climb with length, and human scores at random."""
    rng = random.Random(2)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "answer_length", "score", "human"])
        for n in range(rows):
            length = rng.randint(20, 900)
            score = min(10, length // 120 + rng.randint(0, 3))
            writer.writerow([n, length, score, rng.randint(1, 10)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "scores.csv"
        write_scores(path, args.rows)
        size = path.stat().st_size / 1e6
        command = [sys.executable, "-m", "stages.s11_drift", "audit", str(path), "--json"]
        command += ["--length-col", "answer_length", "--human-col", "human", "--out-dir", folder]
        started = time.perf_counter()
        subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
        elapsed = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB -> MiB
    print(f"audit, {args.rows:,} rows ({size:.0f} MB CSV): {elapsed:.1f} s, peak {peak:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
