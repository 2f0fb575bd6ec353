"""The guard on the wire: stage 6's (`../s06_resilience/guard.py`), with stage 8's count.

The time limit on every call, the breaker and the progress line are stage 6's, and stage 8
puts every plug-in judge behind them (`PLUG_IN` in `../s08_eval/specs.py`). The client of an
endpoint (client.py) keeps a breaker of its own, which counts what a plug-in's counts: a
time-out, a refused connection, and stage 8's `Unreachable` (an unknown host, a TLS failure).
"""

from __future__ import annotations

from stages.s06_resilience import guard
from stages.s06_resilience.guard import Progress
from stages.s08_eval.specs import PLUG_IN

__all__ = ["Breaker", "Progress"]  # Progress: what prefetch.py shows while it fetches


class Breaker(guard.Breaker):
    """Stage 6's breaker, counting what a plug-in judge's breaker counts."""

    def __init__(self, instrument: str) -> None:
        super().__init__(instrument, PLUG_IN.dead)
