"""Exercise budget-counts-replies-received (write the check): the budget counts the questions
sent, so no more than `max_calls` reach the endpoint, whether they are in flight at once or
fail.

`make exercise ID=budget-counts-replies-received` shows the planted bug. Replace the
`pytest.skip(...)` line below with a check that passes on the code as it is and fails with the
bug planted; then run `make exercise ID=budget-counts-replies-received` again to prove it.
"""

import pytest

# >>> main
from fakes.chat_server import ChatServer, Reply, Status
from stages.s08_eval.judge import OverBudget
from stages.s12_real_judge.client import OpenAIJudge
from stages.s12_real_judge.prefetch import prefetch
from stages.s12_real_judge.settings import Settings


def judge_for(server, journal, **settings):
    config = Settings(**{"timeout_s": 2.0, "journal": str(journal), **settings})
    return OpenAIJudge("some-model", config, base_url=server.url, sleep=lambda _: None)


def answers_or_fails(request):
    """A 500 for a question whose answer says it fails; a score of 7 for any other."""
    return Status(500) if "fails" in request["messages"][-1]["content"] else Reply("7")


# <<<


def test_budget_counts_replies_received(tmp_path):
    # >>> main
    with ChatServer(default=answers_or_fails, latency=0.1) as server:
        # 1) Eight questions fetched at once, each answered 0.1 s after it arrives: by the
        # time the first reply comes, every question was sent or refused by the budget.
        questions = [([{"role": "user", "content": f"question {n}"}], "score") for n in range(8)]
        judge = judge_for(server, tmp_path / "a.sqlite", max_calls=3, concurrency=8)
        prefetch(judge, questions)
        assert len(server.requests) == 3  # three sent and paid for; five never sent
        assert judge.describe().paid_calls == 3
        # 2) A question that fails was sent all the same: a 500 (one attempt, no retry)
        # spends the budget as a reply does, and the third question is never sent.
        judge = judge_for(server, tmp_path / "b.sqlite", max_calls=2, attempts=1)
        for answer in ("fails", "fails again"):
            with pytest.raises(ConnectionError, match="HTTP 500"):
                judge.score("task", answer, "reference")
        with pytest.raises(OverBudget):
            judge.score("task", "fails once more", "reference")
        assert len(server.requests) == 3 + 2
    return
    # <<<
    pytest.skip(
        "exercise budget-counts-replies-received: write this check, then run "
        "`make exercise ID=budget-counts-replies-received`"
    )
