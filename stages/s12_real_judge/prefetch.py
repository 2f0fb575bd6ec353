"""Asking ahead. The reports ask one question after another: against an endpoint, one round
trip after another. So 1) the report runs with the judge planning: it writes each question
down and answers something parseable; 2) the questions are asked `concurrency` at a time, into
the run's memory and the journal; 3) the report runs again and finds each reply, or failure,
where a sequential run would have asked for it: same replies, same order, none paid twice.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
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
    seen: Counter[str] = Counter()
    jobs = []
    for messages, shape in planned:
        prompt = json.dumps(messages, sort_keys=True)
        jobs.append((messages, seen[prompt], shape))
        seen[prompt] += 1
    done = failed = 0
    progress = Progress(f"judge openai:{judge.model}", live=judge.progress)
    progress.begin()

    def one(messages: Messages, repeat: int, shape: str) -> bool:
        try:
            judge.ask(messages, repeat, shape)
        except UNAVAILABLE:
            return False
        return True

    pool = ThreadPoolExecutor(max_workers=max(1, judge.settings.concurrency))
    try:
        pending = {pool.submit(one, *job) for job in jobs}
        while pending:  # wakes once a second: progress shows a stalled run too
            finished, pending = wait(pending, 1.0, return_when=FIRST_COMPLETED)
            done += len(finished)
            failed += sum(not future.result() for future in finished)
            progress.tick(done, failed, len(jobs))
    finally:  # after Ctrl-C or a 401, only what is in flight finishes
        pool.shutdown(cancel_futures=True)
        progress.finish()
    return len(jobs)
