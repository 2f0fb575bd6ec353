"""Benchmark stage 9's performance goal (a benchmark, not a timed test).

    python scripts/bench_calibration.py

A bootstrap interval over 10,000 deltas with 2,000 resamples: goal well under a second.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from stages.s09_calibration.stats import bootstrap_ci  # noqa: E402


def main() -> int:
    draws = random.Random(1)
    deltas = [draws.gauss(0.3, 1.5) for _ in range(10_000)]
    started = time.perf_counter()
    interval = bootstrap_ci(deltas, seed=9)
    elapsed = time.perf_counter() - started
    print(f"bootstrap, 10,000 deltas x 2,000 resamples: {elapsed:.3f} s (interval {interval})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
