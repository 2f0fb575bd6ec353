"""How often the corrected intervals contain the truth (a benchmark, not a timed test).

    python scripts/bench_correction.py [--seeds N] [--resamples N]

Stage 9's simulated world (4,000 cases, a true pass rate of 0.714, a judge with TPR 0.93 and
TNR 0.62), drawn under N seeds (default 1,000), with people's labels on 600 cases and then on
fewer. For each method: the share of draws whose 95% interval contains the true rate, the
share where it was not evaluated (a refusal is not a miss, and not a hit either), and the
mean width of the intervals it gave. A 95% interval should contain the truth in about 95%
of draws; with 1,000 draws, anything between 93.6% and 96.4% is within chance of that.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stages.s11_correction.correction import pass_rate
from stages.s11_correction.simulation import World, covers, simulate


def measure(world: World, seeds: int, resamples: int) -> dict[str, list[float]]:
    """By method: [contained, refused, total width] summed over the seeds."""
    found: dict[str, list[float]] = {}
    for seed in range(seeds):
        for e in pass_rate(simulate(world, seed), seed, resamples):
            row = found.setdefault(e.method, [0.0, 0.0, 0.0])
            row[0] += covers(e, world.rate)
            row[1] += not e.evaluated
            row[2] += 0.0 if e.ci is None else e.ci[1] - e.ci[0]
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=2000)
    args = parser.parse_args()
    for labelled in (600, 150, 50):
        world = replace(World(), labelled=labelled)
        started = time.perf_counter()
        found = measure(world, args.seeds, args.resamples)
        took = time.perf_counter() - started
        print(f"{labelled} of {world.cases} labelled, {args.seeds} draws ({took:.1f} s):")
        for method, (hits, refused, width) in found.items():
            given = args.seeds - refused
            mean = f"{width / given:.3f}" if given else "n/a"
            of_given = f"{hits / given:6.1%}" if given else "  n/a"
            print(f"  {method:<20} contains the truth {hits / args.seeds:6.1%} "
                  f"({of_given} of those evaluated), not evaluated {refused / args.seeds:6.1%}, "
                  f"mean width {mean}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
