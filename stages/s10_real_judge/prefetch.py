"""Asking ahead: every question a report will ask, fetched `concurrency` at a time.

The reports of stages 8 and 9 ask one question after another, which against an endpoint
means one round trip after another. So the report is run twice:

1) against a PlanningJudge, which records every question and answers something parseable;
2) the recorded questions are asked at once, `concurrency` at a time, into the run's memory
   and the journal (client.py);
3) the report runs again against the real judge and finds every reply, or every failure,
   where a sequential run would have asked for it: same replies, same order, none paid twice.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Any

from stages.s08_eval.judge import UNAVAILABLE, Judge
from stages.s10_real_judge import prompts
from stages.s10_real_judge.client import OpenAIJudge
from stages.s10_real_judge.guard import Progress

Messages = list[dict[str, str]]


class PlanningJudge:
    """Records every question a run would ask and replies with something parseable."""

    def __init__(self) -> None:
        self.planned: list[Messages] = []

    def score(self, task: str, answer: str, reference: str) -> str:
        self.planned.append(prompts.score_messages(task, answer, reference))
        return "5"

    def compare(self, task: str, first: str, second: str) -> str:
        self.planned.append(prompts.compare_messages(task, first, second))
        return "tie"


def ask_ahead(judge: Judge, run: Callable[[Judge], Any]) -> None:
    """For a real judge, plan `run`'s questions and fetch them all; for any other, nothing."""
    if isinstance(judge, OpenAIJudge):
        planner = PlanningJudge()
        run(planner)
        prefetch(judge, planner.planned)


def prefetch(judge: OpenAIJudge, planned: list[Messages]) -> int:
    """Ask every planned prompt, `concurrency` at a time; return how many there were. The
    n-th time a prompt is planned is its n-th asking: that is how step 3 finds each reply."""
    seen: Counter[str] = Counter()
    jobs = []
    for messages in planned:
        prompt = json.dumps(messages, sort_keys=True)
        jobs.append((messages, seen[prompt]))
        seen[prompt] += 1
    done = failed = 0
    progress = Progress(f"judge openai:{judge.model}", live=judge.progress)
    progress.begin()

    def one(job: tuple[Messages, int]) -> bool:
        try:
            judge.ask(job[0], repeat=job[1])
        except UNAVAILABLE:
            return False
        return True

    try:
        with ThreadPoolExecutor(max_workers=max(1, judge.settings.concurrency)) as pool:
            pending = {pool.submit(one, job) for job in jobs}
            try:
                while pending:  # wakes once a second: progress shows a stalled run too
                    finished, pending = wait(pending, 1.0, return_when=FIRST_COMPLETED)
                    done += len(finished)
                    failed += sum(not future.result() for future in finished)
                    progress.tick(done, failed, len(jobs))
            except BaseException:  # Ctrl-C, a 401: only what is in flight finishes
                for future in pending:
                    future.cancel()
                raise
    finally:
        progress.finish()
    judge.restart_count()  # step 3 counts its repeats from the start again
    return len(jobs)
