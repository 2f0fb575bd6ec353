"""Sampling: when judging every request costs too much, judge a seeded random tenth.

Each request is kept or skipped by a hash of (seed, request id): the same seed keeps the same
requests whatever order they arrive in, another seed keeps others, and nobody who controls
the order of requests can steer which ones the judge sees. A sampler that keeps exactly
every tenth request is a schedule, not a sample: it hits the target exactly and can be gamed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from stages.s08_eval.levels import State

RATE = 0.1
# Over 1,000 requests at rate 0.1 the count is binomial: mean 100, standard deviation
# sqrt(1000 * 0.1 * 0.9) = 9.5. The checks accept 100 +/- 30, a little over three deviations.
TOLERANCE = 30
REQUESTS = 1000  # the report samples this many made-up request ids ...
SEED = 8  # ... with this seed


def keep(request_id: str, seed: int, rate: float = RATE) -> bool:
    """Whether this request goes to the judge: a uniform draw in [0, 1) from the hash, < rate."""
    digest = hashlib.sha256(f"{seed}:{request_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < rate  # pragma: no mutate (equivalent)


def sample(request_ids: Iterable[str], seed: int, rate: float = RATE) -> list[str]:
    """The requests that go to the judge, in their original order."""
    return [request_id for request_id in request_ids if keep(request_id, seed, rate)]


def sampling_state(sent: int, requests: int) -> State:
    """Passed when the count is near the target and not exactly on it (that is a schedule)."""
    target = round(requests * RATE)
    near = abs(sent - target) <= TOLERANCE and sent != target
    return State.PASSED if near else State.FAILED


def sampler_check(fake: bool) -> dict[str, Any]:
    """The sampler run on made-up requests; with an outside judge, not evaluated."""
    sent = len(sample([f"request-{n:04d}" for n in range(REQUESTS)], SEED))
    # The sampler is verified in-process; a real deployment's sampling is not seen here.
    state = sampling_state(sent, REQUESTS) if fake else State.NOT_EVALUATED
    return {"requests": REQUESTS, "sent": sent, "state": str(state)}
