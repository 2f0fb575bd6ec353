"""Asking ahead. The reports ask one question after another: against an endpoint, one round
trip after another. So 1) the report runs against a PlanningJudge, which writes each question
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

from stages.s08_eval.judge import UNAVAILABLE, Judge
from stages.s12_real_judge.client import OpenAIJudge
from stages.s12_real_judge.guard import Progress
from stages.s12_real_judge.prompts import Messages

T = TypeVar("T")


class PlanningJudge:
    """Records every question a run would ask, in the form the real judge will ask it, with
    the shape of its reply; and replies with something parseable."""

    def __init__(self, judge: OpenAIJudge) -> None:
        self.judge = judge  # whose questions these are: it words them
        self.planned: list[tuple[Messages, str]] = []

    def score(self, task: str, answer: str, reference: str) -> str:
        self.planned.append((self.judge.score_messages(task, answer, reference), "score"))
        return "5"

    def compare(self, task: str, first: str, second: str) -> str:
        self.planned.append((self.judge.compare_messages(task, first, second), "verdict"))
        return "tie"


def ask_ahead(judge: Judge, run: Callable[[Judge], T]) -> T:
    """`run(judge)`; for a real judge, with `run`'s questions planned and fetched first."""
    if isinstance(judge, OpenAIJudge):
        planner = PlanningJudge(judge)
        run(planner)
        prefetch(judge, planner.planned)
    return run(judge)


def prefetch(judge: OpenAIJudge, planned: list[tuple[Messages, str]]) -> int:
    """Ask every planned prompt, `concurrency` at a time; return how many there were. The
    n-th time a prompt is planned is its n-th asking: that is how step 3 finds each reply."""
    seen: Counter[str] = Counter()
    jobs = []
    for messages, shape in planned:
        prompt = json.dumps(messages, sort_keys=True)
        jobs.append((messages, shape, seen[prompt]))
        seen[prompt] += 1
    done = failed = 0
    progress = Progress(f"judge openai:{judge.model}", live=judge.progress)
    progress.begin()

    def one(job: tuple[Messages, str, int]) -> bool:
        messages, shape, repeat = job
        try:
            judge.ask(messages, repeat, shape)
        except UNAVAILABLE:
            return False
        return True

    pool = ThreadPoolExecutor(max_workers=max(1, judge.settings.concurrency))
    try:
        pending = {pool.submit(one, job) for job in jobs}
        while pending:  # wakes once a second: progress shows a stalled run too
            finished, pending = wait(pending, 1.0, return_when=FIRST_COMPLETED)
            done += len(finished)
            failed += sum(not future.result() for future in finished)
            progress.tick(done, failed, len(jobs))
    finally:  # after Ctrl-C or a 401, only what is in flight finishes
        pool.shutdown(cancel_futures=True)
        progress.finish()
    judge.restart_count()  # step 3 counts its repeats from the start again
    return len(jobs)
