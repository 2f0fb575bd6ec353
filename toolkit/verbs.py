"""The front door's verbs: for each, the stage commands that serve it and what its exit 1 means.

A verb is served by the latest stage of this checkout that has it: `calibrate` is the first
calibration stage's report where the course begins calibrating, and the report of the stage
that adds real and local judges once the course has it. A route with options serves the verb
only when one of them is given: `gate --history` is the history's gate. Every verb is named
at every tag (BROUGHT); one whose stage this checkout does not have yet is named with the
stage that brings it, never offered. Each stage that brings a verb or a route adds it below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Every verb, in the order `honest-evals --help` lists them, and the stage that brings it.
BROUGHT = {
    "eval": 8, "calibrate": 9, "gate": 10, "correct": 11, "pad": 13, "local-judge": 13,
    "audit": 14, "compare": 15, "budget": 15, "canary": 16, "history": 16, "windows": 17,
    "pairs": 18,
}  # fmt: skip
# Options a later stage adds to a verb, and that stage: given one, the verb is its route's.
LATER_OPTIONS = {
    ("calibrate", "--history"): 16,
    ("gate", "--history"): 16,
    ("gate", "--canaries"): 16,
}


@dataclass(frozen=True)
class Route:
    """One stage command that serves a verb: `python -m MODULE COMMAND... ARGS`."""

    stage: int
    module: str  # stages.sNN_name
    command: tuple[str, ...] = ()  # the stage's sub-command, put before the verb's arguments
    report: str = ""  # the door's name for the stage's `command` (its `main(name=...)`)
    options: tuple[str, ...] = ()  # given one of these, this route serves the verb
    out: str = ""  # where the stage writes its JSON report unless --out says otherwise; for
    # the audit "--out-dir": it writes audit-NAME.json in the folder --out-dir names

    @property
    def shown(self) -> str:
        return " ".join(["python -m", self.module, *self.command])


@dataclass(frozen=True)
class Verb:
    name: str
    line: str  # what it does, in one line
    example: str  # commands that run as written from the course's folder, joined by " && "
    one: str  # what exit 1 means for it
    routes: list[Route] = field(default_factory=list)  # in the order of their stages
    found: tuple[str, ...] = ()  # the report's measures whose state "found" is a finding
    json: bool = True  # it takes --json; else what it writes is documented where its help says

    @property
    def stage(self) -> int:
        return BROUGHT[self.name]


# What every verb's exit status means: one table, the same for every verb.
EXIT_CODES = (
    (0, "nothing found, and everything measured"),
    (1, "a finding, a failed gate, or a measure not evaluated (the verb's help says which)"),
    (2, "bad input or usage: one line names the value and where it came from"),
    (130, "interrupted (Ctrl-C); 143 terminated, as a shell reports them"),
)
# Flaws of the judge: the control must show none. The length confound is left out: a
# correlation with length is not a bias, and the steady control shows it too.
JUDGE_FLAWS = ("verbosity", "concise", "calibration", "pairwise", "self_preference")
SPECS = "biased, steady, module:attr (any object with the judge methods)"
LOCAL_RUNS: dict[str, tuple[tuple[list[str], bool], ...]] = {}  # each local model's runs
VERBS: list[Verb] = []
# >>> stage 8
EVAL = Verb(
    "eval",
    "the agent evaluated on three levels; the judge's position and length bias",
    "honest-evals eval --judge steady --json",
    "the judge shows position or length bias, or a measure was not evaluated",
    [Route(8, "stages.s08_eval", out="reports/s08_eval.json")],
    found=("position_bias.judge", "length_bias.judge"),
)
VERBS.append(EVAL)
# <<<
# >>> stage 9
CALIBRATE = Verb(
    "calibrate",
    "the judge calibrated: is its error noise or bias? Twins, repeats, swaps, intervals",
    "honest-evals calibrate --judge steady",
    "the judge shows a flaw (" + ", ".join(JUDGE_FLAWS) + "), or a measure was not evaluated",
    found=JUDGE_FLAWS,
)
VERBS.append(CALIBRATE)
CALIBRATE.routes.append(
    Route(9, "stages.s09_calibration", ("report",), "calibrate", out="reports/s09_calibration.json")
)
# <<<
# >>> stage 10
CALIBRATE.routes.append(
    Route(10, "stages.s10_agreement", ("report",), "calibrate", out="reports/s10_agreement.json")
)
GATE = Verb(
    "gate",
    "the judge held to the gate's rules: exit 1 unless it passes every one",
    "honest-evals gate --judge steady",
    "a rule failed, or could not be evaluated",
    [Route(10, "stages.s10_agreement", ("gate",))],
)
VERBS.append(GATE)
# <<<
# >>> stage 11
CALIBRATE.routes.append(
    Route(11, "stages.s11_correction", ("report",), "calibrate", out="reports/s11_correction.json")
)
CORRECT = Verb(
    "correct",
    "a pass rate corrected for the judge's measured errors (no files: a simulated world)",
    "honest-evals correct",
    "no corrected figure could be made (the simulation: the estimates are not told apart)",
    [Route(11, "stages.s11_correction", ("correct",))],
)
VERBS.append(CORRECT)
GATE.routes.append(Route(11, "stages.s11_correction", ("gate",)))
# <<<
# >>> stage 12
SPECS += ", openai:MODEL"
S12_EVAL, S12_CALIBRATION = "reports/s12_eval.json", "reports/s12_calibration.json"
EVAL.routes.append(Route(12, "stages.s12_real_judge", ("eval",), out=S12_EVAL))
CALIBRATE.routes.append(Route(12, "stages.s12_real_judge", ("calibrate",), out=S12_CALIBRATION))
GATE.routes.append(Route(12, "stages.s12_real_judge", ("gate",)))
# <<<
# >>> stage 13
SPECS += ", local[:MODEL], replay[:MODEL]"
for verb in (EVAL, CALIBRATE, GATE):  # the wire's routes, with the local judges too
    wire = verb.routes[-1]
    verb.routes.append(Route(13, "stages.s13_local_model", wire.command, out=wire.out))
VERBS.append(
    Verb(
        "pad",
        "padded twins written by a model, each checked, for review",
        "honest-evals pad --judge replay",
        "the judge stopped answering",
        [Route(13, "stages.s13_local_model", ("pad",))],
        json=False,
    )
)
VERBS.append(
    Verb(
        "local-judge",
        "a local model started, measured by the commands, its replies recorded, stopped",
        "honest-evals local-judge --model qwen-1.5b",
        "a measuring run failed (not those listed as expected to fail)",
        [Route(13, "stages.s13_local_model")],
        json=False,
    )
)
# Each local model's runs, as `make local-judge MODEL=NAME` has them (stage 13's models.toml
# names the models): (arguments, whether a failure counts). With bare replies the bundled
# model answers in prose, and those two runs fail, as they should; the larger model fails the
# gate. They are kept for the lesson, not gated on. The larger model's gate asks nothing new:
# its questions are the open rubric's, which `calibrate` asked.
BARE = "stages/s13_local_model/bare.toml"
QWEN = "local:qwen-1.5b"
LOCAL_RUNS["smollm2-135m"] = (
    (["eval", "--judge", "local", "--record", "--out", "reports/s13_local_eval.json"], True),
    (["calibrate", "--judge", "local", "--record", "--out", "reports/s13_local_calibration.json"],
     True),
    (["eval", "--judge", "local", "--record", "--judge-config", BARE, "--out",
      "reports/s13_local_eval_bare.json"], False),
    (["gate", "--judge", "local", "--record", "--judge-config", BARE], False),
    (["pad", "--judge", "local", "--record"], True),
)  # fmt: skip
LOCAL_RUNS["qwen-1.5b"] = (
    (["calibrate", "--judge", QWEN, "--record", "--out", "reports/s13_qwen-1.5b_calibration.json"],
     True),
    (["gate", "--judge", QWEN, "--record"], False),
)  # fmt: skip
# <<<
# >>> stage 14
VERBS.append(
    Verb(
        "audit",
        "a file of scores you already have: every row measured or named",
        "honest-evals audit fixtures/team_scores.csv --answer-col answer --human-col label",
        "the judge disagrees with people (calibration), a measure was not evaluated, or no "
        "row was usable",
        [Route(14, "stages.s14_audit", out="--out-dir")],
        found=("calibration",),
    )
)
# <<<
# >>> stage 15
CORRECT.routes.append(Route(15, "stages.s15_versions", ("correct",)))
VERBS.append(
    Verb(
        "compare",
        "two stage-8 reports of your agent compared case by case, length held equal",
        "honest-evals compare",
        "a comparison was not evaluated, a checked level moved, or no corrected change",
        [Route(15, "stages.s15_versions", ("compare",))],
    )
)
VERBS.append(
    Verb(
        "budget",
        "how many labels the gate's rates need, and the smallest change two versions can show",
        "honest-evals budget --rates 0.9 0.9",
        "a rate is not above its bar (no number of labels certifies it), or was not measured",
        [Route(15, "stages.s15_versions", ("budget",))],
    )
)
# <<<
# >>> stage 16
CALIBRATE.routes.append(Route(16, "stages.s16_history", ("calibrate",), options=("--history",)))
GATE.routes.append(Route(16, "stages.s16_history", ("gate",), options=("--history", "--canaries")))
VERBS.append(
    Verb(
        "canary",
        "a judge's replies to fixed questions recorded, or asked again: has it changed?",
        "honest-evals canary",
        "the replies changed beyond --threshold, or could not be checked",
        [Route(16, "stages.s16_history", ("canary",))],
    )
)
VERBS.append(
    Verb(
        "history",
        "a calibration history as a table, and plots",
        "honest-evals calibrate --judge steady --history reports/judge-history.jsonl && "
        "honest-evals history reports/judge-history.jsonl",
        "the history holds no run",
        [Route(16, "stages.s16_history", ("history",))],
    )
)
# <<<
# >>> stage 17
VERBS.append(
    Verb(
        "windows",
        "scores over time: shifts between windows, and a mean that only rises",
        "honest-evals windows",
        "a shift, a steady rise, or a figure not evaluated",
        [Route(17, "stages.s17_windows")],
    )
)
# <<<
# >>> stage 18
VERBS.append(
    Verb(
        "pairs",
        "pairwise verdicts in both orders: six real judges on record, or your log (audit FILE)",
        "honest-evals pairs && honest-evals pairs audit fixtures/llmbar/chatgpt_natural.csv",
        "your log's judge shows a flaw or a measure was not evaluated (audit); the control "
        "shows a flaw or a measure was not evaluated (the record)",
        [Route(18, "stages.s18_judges_on_record")],
    )
)
# <<<
BY_NAME = {verb.name: verb for verb in VERBS}
