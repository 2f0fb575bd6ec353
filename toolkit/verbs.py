"""The front door's verbs: for each, the stage commands that serve it and what its exit 1 means.

A verb is served by the latest stage of this checkout that has it: `calibrate` is stage 9's
report at the tag stage-09 and stage 13's (which adds real and local judges) from stage-13 on.
A route with an `option` serves the verb only when that option is given: `gate --history`
is stage 16's gate. The table names every verb at every tag; a verb whose stage this checkout
does not have is named with the stage that brings it, never offered.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Route:
    """One stage command that serves a verb: `python -m MODULE COMMAND... ARGS`."""

    stage: int
    module: str  # stages.sNN_name
    command: tuple[str, ...] = ()  # the stage's sub-command, put before the verb's arguments
    report: str = ""  # the stage's name for the report the verb is (its `main(name=...)`)
    option: str = ""  # given this option, this route serves the verb; without it, not
    out: str = ""  # where the stage writes its JSON report unless --out says otherwise; for
    # the audit "--out-dir": it writes audit-NAME.json in the folder --out-dir names

    @property
    def present(self) -> bool:
        return (ROOT / self.module.replace(".", "/") / "__main__.py").is_file()

    @property
    def shown(self) -> str:
        return " ".join(["python -m", self.module, *self.command])


@dataclass(frozen=True)
class Verb:
    name: str
    line: str  # what it does, in one line
    example: str  # a command that runs as written from the course's folder
    one: str  # what exit 1 means for it
    routes: tuple[Route, ...]
    found: tuple[str, ...] = ()  # the report's measures whose state "found" is a finding

    @property
    def stage(self) -> int:
        """The stage that brings the verb."""
        return min(route.stage for route in self.routes)


def _report(stage: int, module: str, out: str) -> Route:
    """Stages 9 to 11 call the report `report`; the door calls it `calibrate`."""
    return Route(stage, module, ("calibrate",), report="calibrate", out=out)


# Flaws of the judge: the control must show none. The length confound is left out: a
# correlation with length is not a bias (stage 10), and the steady control shows it too.
JUDGE_FLAWS = ("verbosity", "concise", "calibration", "pairwise", "self_preference")
S12_EVAL, S12_CALIBRATION = "reports/s12_eval.json", "reports/s12_calibration.json"

VERBS = (
    Verb(
        "eval",
        "the agent evaluated on three levels; the judge's position and length bias",
        "honest-evals eval --judge steady --json",
        "the judge shows position or length bias, or a measure was not evaluated",
        (
            Route(8, "stages.s08_eval", out="reports/s08_eval.json"),
            Route(12, "stages.s12_real_judge", ("eval",), out=S12_EVAL),
            Route(13, "stages.s13_local_model", ("eval",), out=S12_EVAL),
        ),
        found=("position_bias.judge", "length_bias.judge"),
    ),
    Verb(
        "calibrate",
        "twins, repeats, swaps and intervals; agreement with people; the corrected pass rate",
        "honest-evals calibrate --judge steady",
        "the judge shows a flaw (" + ", ".join(JUDGE_FLAWS) + "), or a measure was not evaluated",
        (
            _report(9, "stages.s09_calibration", "reports/s09_calibration.json"),
            _report(10, "stages.s10_agreement", "reports/s10_agreement.json"),
            _report(11, "stages.s11_correction", "reports/s11_correction.json"),
            Route(12, "stages.s12_real_judge", ("calibrate",), out=S12_CALIBRATION),
            Route(13, "stages.s13_local_model", ("calibrate",), out=S12_CALIBRATION),
            Route(16, "stages.s16_history", ("calibrate",), option="--history"),
        ),
        found=JUDGE_FLAWS,
    ),
    Verb(
        "gate",
        "the judge held to the gate's rules; --history and --canaries add the history's",
        "honest-evals gate --judge steady",
        "a rule failed, or could not be evaluated",
        (
            Route(10, "stages.s10_agreement", ("gate",)),
            Route(12, "stages.s12_real_judge", ("gate",)),
            Route(13, "stages.s13_local_model", ("gate",)),
            Route(16, "stages.s16_history", ("gate",), option="--history"),
        ),
    ),
    Verb(
        "correct",
        "a run's pass rate corrected by people's labels (no files: a simulated world)",
        "honest-evals correct",
        "no corrected figure could be made (the simulation: the estimates are not told apart)",
        (
            Route(11, "stages.s11_correction", ("correct",)),
            Route(15, "stages.s15_versions", ("correct",)),
        ),
    ),
    Verb(
        "pad",
        "padded twins written by a model, each checked, for review",
        "honest-evals pad --judge replay",
        "the judge stopped answering",
        (Route(13, "stages.s13_local_model", ("pad",)),),
    ),
    Verb(
        "local-judge",
        "the bundled local model started, measured by eval, calibrate, gate and pad, stopped",
        "honest-evals local-judge",
        "a measuring run failed (the bare-reply runs are expected to)",
        (Route(13, "stages.s13_local_model"),),
    ),
    Verb(
        "audit",
        "a file of scores you already have: every row measured or named",
        "honest-evals audit fixtures/team_scores.csv --answer-col answer --human-col label",
        "the judge disagrees with people (calibration), a measure was not evaluated, or no "
        "row was usable",
        (Route(14, "stages.s14_audit", out="--out-dir"),),
        found=("calibration",),
    ),
    Verb(
        "compare",
        "two stage-8 reports of your agent compared case by case, length held equal",
        "honest-evals compare",
        "a comparison was not evaluated, a checked level moved, or no corrected change",
        (Route(15, "stages.s15_versions", ("compare",)),),
    ),
    Verb(
        "canary",
        "a judge's replies to fixed questions recorded, or asked again: has it changed?",
        "honest-evals canary",
        "the replies changed beyond --threshold, or could not be checked",
        (Route(16, "stages.s16_history", ("canary",)),),
    ),
    Verb(
        "history",
        "a calibration history as a table, and plots",
        "honest-evals calibrate --judge steady --history reports/judge-history.jsonl && "
        "honest-evals history reports/judge-history.jsonl",
        "the history holds no run",
        (Route(16, "stages.s16_history", ("history",)),),
    ),
    Verb(
        "windows",
        "scores over time: shifts between windows, and a mean that only rises",
        "honest-evals windows",
        "a shift, a steady rise, or a figure not evaluated",
        (Route(17, "stages.s17_windows"),),
    ),
    Verb(
        "pairs",
        "real judges' recorded verdicts, in both orders, against expert labels",
        "honest-evals pairs",
        "a finding, or a measure not evaluated",
        (Route(18, "stages.s18_judges_on_record"),),
    ),
)
BY_NAME = {verb.name: verb for verb in VERBS}

# What every verb's exit status means: one table, the same for every verb.
EXIT_CODES = (
    (0, "nothing found, and everything measured"),
    (1, "a finding, a failed gate, or a measure not evaluated (the verb's help says which)"),
    (2, "bad input or usage: one line names the value and where it came from"),
    (130, "interrupted (Ctrl-C); 143 terminated, as a shell reports them"),
)

# The bundled model's runs, as `make local-judge` has them: (arguments, whether a failure
# counts). With bare replies the model answers in prose, and those two runs fail, as they
# should: they are kept for the lesson, not gated on.
BARE = "stages/s13_local_model/bare.toml"
LOCAL_RUNS = (
    (["eval", "--judge", "local", "--record", "--out", "reports/s13_local_eval.json"], True),
    (["calibrate", "--judge", "local", "--record", "--out", "reports/s13_local_calibration.json"],
     True),
    (["eval", "--judge", "local", "--record", "--judge-config", BARE, "--out",
      "reports/s13_local_eval_bare.json"], False),
    (["gate", "--judge", "local", "--record", "--judge-config", BARE], False),
    (["pad", "--judge", "local", "--record"], True),
)  # fmt: skip
