"""Asking ahead. The reports ask one question after another: against an endpoint, one round
trip after another. So 1) the report runs with the judge planning: it writes each question
down and answers something parseable; 2) the questions are asked `concurrency` at a time, into
the run's memory and the journal; 3) the report runs again and finds each reply, or failure,
where a sequential run would have asked for it: same replies, same order, none paid twice."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import suppress
from queue import Empty, SimpleQueue
from typing import TypeVar

from stages.s08_eval.judge import UNAVAILABLE
from stages.s08_eval.specs import JudgeChoice
from stages.s12_real_judge.client import OpenAIJudge
from stages.s12_real_judge.guard import Progress
from stages.s12_real_judge.prompts import Messages

T = TypeVar("T")


def ask_ahead(chosen: JudgeChoice, run: Callable[[JudgeChoice], T]) -> T:
    """`run(chosen)`; for a real judge, with `run`'s questions planned and fetched first."""
    judge = chosen.judge
    if isinstance(judge, OpenAIJudge):
        judge.planned = []
        try:
            run(chosen)
        finally:  # a plan that fails leaves a judge that asks, not one that answers "5"
            planned, judge.planned = judge.planned, None
        prefetch(judge, planned)
    return run(chosen)


def prefetch(judge: OpenAIJudge, planned: list[tuple[Messages, str]]) -> int:
    """Ask every planned prompt, `concurrency` at a time; return how many there were. The
    n-th time a prompt is planned is its n-th asking: that is how step 3 finds each reply."""
    done = failed = 0
    progress = Progress(f"judge {judge.spec}", live=judge.progress)
    progress.begin()

    def one(messages: Messages, repeat: int, shape: str) -> bool:
        try:
            judge.ask(messages, repeat, shape)
        except UNAVAILABLE:
            return False
        return True

    seen: Counter[str] = Counter()
    # answers as they come: a wait on all pending ones at each answer costs a long run's square
    answered: SimpleQueue[Future[bool]] = SimpleQueue()
    pool = ThreadPoolExecutor(max_workers=max(1, judge.settings.concurrency))
    try:
        for messages, shape in planned:
            prompt = json.dumps(messages, sort_keys=True)
            pool.submit(one, messages, seen[prompt], shape).add_done_callback(answered.put)
            seen[prompt] += 1
        while done < len(planned):  # wakes once a second: progress shows a stalled run too
            with suppress(Empty):
                failed += not answered.get(timeout=1.0).result()
                done += 1
            progress.tick(done, failed, len(planned))
    finally:  # after Ctrl-C or a 401, only what is in flight finishes
        pool.shutdown(cancel_futures=True)
        progress.finish()
    return len(planned)
