"""Benchmark stage 18's reading of a large pairwise log (a benchmark, not a timed test).

    python scripts/bench_pairs.py [--rows N]

The stage's report over the committed fixture (goal: under 5 s), then `audit FILE --json` on
an N-row CSV pairwise log (default 1,000,000) written to a temporary
folder and seeded: two lengths, a verdict in each order and one person's label a pair. The
judge follows the label 70% of the time, else the longer output or the slot shown first; 3%
of its verdicts are tie and 1% blank (unread); a fifth of the pairs are unlabelled. Goals:
under 30 s and a peak memory under 500 MB on two cores (the command runs in its own process;
its CPU time and peak resident size are read from the operating system when it ends).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
FOLLOWS, LONGER, TIES, BLANK, UNLABELLED = 0.70, 0.15, 0.03, 0.01, 0.2  # shares of the judge's
CHUNK = 100_000  # pairs drawn and written at a time


def write_log(path: Path, rows: int) -> None:
    """A CSV log of `rows` pairs: id, length_1, length_2, verdict, verdict_swapped, label.

    Written CHUNK pairs at a time: a child process starts with the peak memory of its parent
    (Linux keeps the larger across the exec), so this process must stay small to measure it.
    """
    rng = np.random.default_rng(18)
    with path.open("w", encoding="utf-8") as handle:
        handle.write("id,length_1,length_2,verdict,verdict_swapped,label\n")
        for start in range(0, rows, CHUNK):
            handle.writelines(pairs(rng, start, min(CHUNK, rows - start)))


def pairs(rng: np.random.Generator, start: int, rows: int) -> list[str]:
    """`rows` lines of the log, the first numbered `start`."""
    lengths = rng.integers(20, 900, size=(rows, 2))
    label = rng.integers(1, 3, size=rows)  # the output a person chose: 1 or 2
    longer = np.where(lengths[:, 0] >= lengths[:, 1], 1, 2)

    def verdicts(first: int) -> list[str]:  # first: the output shown first
        drawn = rng.random(rows)
        chosen = np.where(drawn < FOLLOWS, label, np.where(drawn < FOLLOWS + LONGER, longer, first))
        words = np.where(chosen == first, "first", "second")
        words = np.where(drawn > 1 - TIES - BLANK, "tie", words)
        return list(np.where(drawn > 1 - BLANK, "", words).tolist())

    people = np.where(rng.random(rows) < UNLABELLED, "", label.astype(str)).tolist()
    columns = zip(lengths[:, 0].tolist(), lengths[:, 1].tolist(), verdicts(1), verdicts(2),
                  people, strict=True)  # fmt: skip
    return [f"pair{start + n},{a},{b},{v},{s},{p}\n" for n, (a, b, v, s, p) in enumerate(columns)]


def run(what: str, command: list[str]) -> int:
    """Run `command` in a process of its own; print its time, CPU time and peak memory."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = used.ru_utime + used.ru_stime - before.ru_utime - before.ru_stime
    peak = used.ru_maxrss / 1024  # KiB -> MiB; the largest child so far
    print(
        f"{what}: {elapsed:.1f} s, {cpu:.1f} s of CPU, peak {peak:.0f} MiB, exit {done.returncode}"
    )
    if done.returncode > 1 or not done.stdout:  # an error, or no report to show
        print(done.stdout[-2000:], done.stderr[-2000:], sep="\n")
        return done.returncode or 1
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    stage = [sys.executable, "-m", "stages.s18_judges_on_record"]
    failed = run("report over the fixture (goal: under 5 s)", [*stage, "--json"])
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "pairs.csv"
        write_log(path, args.rows)
        size = path.stat().st_size / 1e6
        what = f"audit of {args.rows:,} pairs, {size:.0f} MB of CSV (goals: 30 s, 500 MB)"
        failed = run(what, [*stage, "audit", str(path), "--json"]) or failed
    return failed


if __name__ == "__main__":
    sys.exit(main())
