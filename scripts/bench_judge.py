"""Benchmark the real-judge path against a loopback chat-completions server.

    python scripts/bench_judge.py [--calls N] [--latency S] [--concurrency C]

1) N distinct questions asked `concurrency` at a time, each reply delayed by `latency`: the
   achieved throughput as a share of the ideal C / L (goal: at least 0.9 at C=16, L=50 ms).
2) The same N again with the cache warm: the calls made (goal: 0) and the harness's time
   per cached reply (goal: under 1 ms).
A benchmark, not a timed test: machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from stages.s12_real_judge.client import OpenAIJudge  # noqa: E402
from stages.s12_real_judge.prefetch import prefetch  # noqa: E402
from stages.s12_real_judge.settings import Settings  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    questions = [[{"role": "user", "content": f"question {n}"}] for n in range(args.calls)]
    # The server runs in a process of its own, as a real endpoint would: in-process, its
    # threads would share the interpreter lock with the client's and slow both.
    server = subprocess.Popen(
        [sys.executable, "-m", "fakes.chat_server", "--latency", str(args.latency)],
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert server.stdout is not None
    url = server.stdout.readline().strip()

    def served() -> int:
        with urllib.request.urlopen(url + "/count") as response:
            return int(json.load(response)["requests"])

    try:
        with tempfile.TemporaryDirectory() as folder:
            settings = Settings(
                concurrency=args.concurrency,
                max_calls=args.calls,
                journal=f"{folder}/journal.sqlite",
            )

            def judge() -> OpenAIJudge:
                return OpenAIJudge("bench", settings, api_key="bench", base_url=url)

            cold = judge()
            started = time.perf_counter()
            prefetch(cold, [(q, "score") for q in questions])
            elapsed = time.perf_counter() - started
            ideal = args.concurrency / max(args.latency, 1e-9)
            achieved = args.calls / elapsed
            print(
                f"cold: {args.calls} calls in {elapsed:.2f} s = {achieved:.0f}/s; ideal C/L = "
                f"{ideal:.0f}/s; ratio {achieved / ideal:.2f} (goal: at least 0.9)"
            )
            warm = judge()
            before = served()
            started = time.perf_counter()
            prefetch(warm, [(q, "score") for q in questions])
            for question in questions:  # the report's own, sequential pass
                warm.ask(question)
            per_reply = (time.perf_counter() - started) / (2 * args.calls)
            print(
                f"warm: {served() - before} calls made (goal: 0); {per_reply * 1000:.3f} ms "
                "per cached reply (goal: under 1 ms)"
            )
    finally:
        server.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
