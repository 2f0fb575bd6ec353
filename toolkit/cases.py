"""What the door's checks (toolkit/checks) run each verb with: the arguments that make it print
what its stage command prints (SAME), and a case for each row of the exit table it can reach
with the course's fakes (CASES). The stage that brings a verb brings its cases with it, so
that at every tag the checks hold every verb the tag has, and only those.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass


@dataclass(frozen=True)
class Same:
    """A verb's arguments, and whether what it prints is one JSON object. `before` runs first
    (at the door), `{tmp}` in an argument is the check's own folder."""

    args: tuple[str, ...]
    as_json: bool = True
    before: tuple[str, ...] = ()


@dataclass(frozen=True)
class Case:
    """A verb's arguments and the exit status the table gives them; `files` are written in
    the check's folder first (a name, its text), and `env` is added to the environment."""

    args: tuple[str, ...]
    status: int
    files: tuple[tuple[str, str], ...] = ()
    env: tuple[tuple[str, str], ...] = ()


SAME: dict[str, Same] = {}
CASES: dict[str, list[Case]] = {}
# The loopback server answering as a fake judge (the fake's name, a port or 0): its base URL.
Loopback = Callable[..., AbstractContextManager[str]]
LOOPBACK: Loopback | None = None
CI_EXAMPLE = ""  # the GitHub Actions example, once the history's gate is here
DEPENDENCY = ("", "")  # a verb, and a module it needs that the course installs
# >>> stage 8
SAME["eval"] = Same(("--judge", "steady", "--json"))
CASES["eval"] = [
    Case(("--judge", "steady"), 0),
    Case(("--judge", "biased"), 1),
    Case(("--judge", "fakes.judges:ProseJudge"), 1),  # nothing scored: not evaluated
    Case(("--judge", "no.such:judge"), 2),
    Case(("--bogus",), 2),
]
# <<<
# >>> stage 9
DEPENDENCY = ("calibrate", "numpy")
SAME["calibrate"] = Same(("--judge", "steady", "--json"))
CASES["calibrate"] = [
    Case(("--judge", "steady"), 0),
    Case(("--judge", "biased"), 1),
    Case(("--repeats", "0"), 2),
]
# <<<
# >>> stage 10
SAME["gate"] = Same(("--judge", "steady", "--json"))
CASES["gate"] = [
    Case(("--judge", "steady"), 0),
    Case(("--judge", "biased"), 1),
    Case(("--config", "no-such-gate.toml"), 2),
]
# <<<
# >>> stage 11
SAME["correct"] = Same(("--json",))
CASES["correct"] = [Case((), 0), Case(("--bogus",), 2)]
# 48 labels cannot certify the steady judge; a judge that agrees with all of them, they can
SAME["gate"] = Same(("--judge", "fakes.judges:PeopleJudge", "--json"))
CASES["gate"][0] = Case(("--judge", "steady"), 1)
CASES["gate"].append(Case(("--judge", "fakes.judges:PeopleJudge"), 0))
# <<<
# >>> stage 12


def _loopback(judge: str = "SteadyJudge", port: int = 0) -> AbstractContextManager[str]:
    from collections.abc import Iterator
    from contextlib import contextmanager

    from fakes import judges
    from fakes.chat_server import ChatServer, answering_as

    @contextmanager
    def served() -> Iterator[str]:
        with ChatServer(default=answering_as(getattr(judges, judge)()), port=port) as server:
            yield server.url

    return served()


LOOPBACK = _loopback
REFUSED = "http://127.0.0.1:9/v1"  # the discard port: nothing listens, a connection is refused
CASES["eval"].append(Case(("--judge", "openai:m"), 1, env=(("OPENAI_BASE_URL", REFUSED),)))
# <<<
# >>> stage 13
SAME["pad"] = Same(("--judge", "replay", "--out", "{tmp}/twins.jsonl"), as_json=False)
CASES["pad"] = [
    Case(("--judge", "replay", "--out", "{tmp}/twins.jsonl"), 0),
    Case(("--judge", "openai:m", "--out", "{tmp}/t.jsonl"), 1, env=(("OPENAI_BASE_URL", REFUSED),)),
    Case(("--judge", "steady"), 2),
]
CASES["local-judge"] = [Case(("--now",), 2)]
# <<<
# >>> stage 14
TEAM = "fixtures/team_scores.csv"
AUDIT = (TEAM, "--answer-col", "answer", "--out-dir", "{tmp}")
SAME["audit"] = Same((*AUDIT, "--human-col", "label", "--json"))
CASES["audit"] = [
    Case(AUDIT, 0),
    Case((*AUDIT, "--human-col", "label"), 1),
    Case((*AUDIT, "--score-col", "nope"), 2),
]
# <<<
# >>> stage 15
SAME["compare"] = Same(("--json",))
CASES["compare"] = [Case((), 0), Case(("one-report.json",), 2)]
SAME["budget"] = Same(("--rates", "0.9", "0.9", "--json"))
CASES["budget"] = [
    Case(("--rates", "0.9", "0.9"), 0),
    Case(("--judge", "steady"), 1),  # its true-negative rate is below the bar
    Case(("--rates", "2", "0.9"), 2),
]
CASES["correct"].append(Case(("no-such-report.json", "labels.csv"), 2))
# <<<
# >>> stage 16
CI_EXAMPLE = "docs/ci-example.yml"
HISTORY = ("--history", "{tmp}/h.jsonl")
SAME["canary"] = Same(("--json",))
SAME["history"] = Same(
    ("{tmp}/h.jsonl", "--json"), before=("calibrate", "--judge", "steady", *HISTORY)
)
CASES["gate"].append(Case((*HISTORY, "--judge", "steady"), 2, files=(("h.jsonl", "{}\n"),)))
CASES["canary"] = [
    Case((), 0),
    Case(("--judge", "fakes.judges:updated_judge"), 1),
    Case(("--threshold", "-1"), 2),
]
CASES["history"] = [
    Case(("{tmp}/h.jsonl",), 1, files=(("h.jsonl", ""),)),  # a history of no run
    Case(("{tmp}/none.jsonl",), 2),
]
# <<<
# >>> stage 17
SAME["windows"] = Same(("--json",))
LOW, HIGH = "score\n" + "3\n4\n" * 8, "score\n" + "9\n10\n" * 8  # 16 scores a week
CASES["windows"] = [
    Case((), 0),
    Case(("{tmp}/w1.csv", "{tmp}/w2.csv"), 1, files=(("w1.csv", LOW), ("w2.csv", HIGH))),
    Case(("{tmp}/one.csv",), 2, files=(("one.csv", LOW),)),
]
# <<<
# >>> stage 18
SAME["pairs"] = Same(("--json",))
FAIR = "id,length_1,length_2,verdict,verdict_swapped,label\n" + "".join(
    f"p{n},{10 + n},{30 - n},{'first' if n % 2 else 'second'},"
    f"{'second' if n % 2 else 'first'},{1 if n % 2 else 2}\n"
    for n in range(12)
)  # a judge that follows the label in both orders: no slot, no taste beyond the labels
CASES["pairs"] = [
    Case((), 0),
    Case(("audit", "{tmp}/fair.csv"), 0, files=(("fair.csv", FAIR),)),
    Case(("audit", "fixtures/llmbar/chatgpt_natural.csv"), 1),
    Case(("audit", "{tmp}/none.csv"), 2),
]
# <<<
