"""Benchmark stage 9's two performance goals (a benchmark, not a timed test).

    python scripts/bench_calibration.py [--rows N]

1) A bootstrap interval over 10,000 deltas with 2,000 resamples: goal well under a second.
2) `audit` on an N-row CSV (default 1,000,000) it writes to a temporary folder: goal under
   30 s and a peak memory under 300 MB (the audit runs in its own process; its peak
   resident size is read from the operating system when it ends).
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
sys.path.insert(0, str(ROOT))

from stages.s09_calibration.stats import bootstrap_ci  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()

    draws = random.Random(1)
    deltas = [draws.gauss(0.3, 1.5) for _ in range(10_000)]
    started = time.perf_counter()
    interval = bootstrap_ci(deltas, seed=9)
    print(f"bootstrap, 10,000 deltas x 2,000 resamples: {time.perf_counter() - started:.3f} s "
          f"(interval {interval})")  # fmt: skip

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "scores.csv"
        rng = random.Random(2)
        with path.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["id", "answer_length", "score", "human"])
            for n in range(args.rows):
                length = rng.randint(20, 900)
                writer.writerow([n, length, min(10, length // 120 + rng.randint(0, 3)),
                                 rng.randint(1, 10)])  # fmt: skip
        size = path.stat().st_size / 1e6
        command = [sys.executable, "-m", "stages.s09_calibration", "audit", str(path),
                   "--length-col", "answer_length", "--human-col", "human", "--json"]  # fmt: skip
        started = time.perf_counter()
        subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
        elapsed = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB -> MiB
    print(f"audit, {args.rows:,} rows ({size:.0f} MB CSV): {elapsed:.1f} s, peak {peak:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
