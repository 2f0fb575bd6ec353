"""Exercise a-canary-not-evaluated-passes-the-gate (write the check): `gate --canaries` passes
its canary rule only when the canaries were answered and none changed; canaries that could
not be asked are not evaluated, and fail the rule.

`make exercise ID=a-canary-not-evaluated-passes-the-gate` shows the planted bug. Replace the
`pytest.skip(...)` line below with a check that passes on the code as it is and fails with the
bug planted; then run `make exercise ID=a-canary-not-evaluated-passes-the-gate` again to prove
it.
"""

import pytest

# >>> main
from fakes.chat_server import ChatServer, Status, answering_as
from fakes.judges import VersionedJudge

# <<<


def test_a_canary_not_evaluated_passes_the_gate(cli, tmp_path, monkeypatch):
    # >>> main
    # The provider serves shop-judge (its canaries are on file) while it is calibrated; every
    # reply paid for is kept in the journal. One try a question: a failure is not retried.
    history, journal = tmp_path / "history.jsonl", tmp_path / "journal.sqlite"
    config = tmp_path / "judge.toml"
    config.write_text(f'journal = "{journal}"\nattempts = 1\n', encoding="utf-8")
    judge = ("--judge", "openai:shop-judge", "--judge-config", str(config))
    serving = [answering_as(VersionedJudge())]
    with ChatServer(default=lambda request: serving[0](request)) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        made = cli("stages.s16_history", "calibrate", "--history", str(history), *judge)
        assert made.returncode == 0, made.stdout + made.stderr
        # Then the endpoint goes down. The gate's questions are the calibration's, all in the
        # journal, so stage 9's rules and the history's can pass; the canaries are asked
        # anew, and not one of the twelve is answered.
        serving[0] = lambda request: Status(503)
        gate = cli("stages.s16_history", "gate", "--history", str(history), *judge, "--canaries")
    assert "passed: 5 of 5 rules" in gate.stdout  # stage 11's, from the journal
    canary = [line for line in gate.stdout.splitlines() if "canaries:" in line]
    # 0 of 12 answered: fewer than the 2, and than the half, that a finding needs
    assert canary == [
        "  FAIL  canaries: not evaluated (too little usable data: 0 usable of 12, 12 unscored "
        "(needs at least 2 and 50%)) — at most 0 changed"
    ]
    assert "FAILED: 4 of 5 rules" in gate.stdout  # the four history rules hold, not the canaries
    assert gate.returncode == 1
    return
    # <<<
    pytest.skip(
        "exercise a-canary-not-evaluated-passes-the-gate: write this check, then run "
        "`make exercise ID=a-canary-not-evaluated-passes-the-gate`"
    )
