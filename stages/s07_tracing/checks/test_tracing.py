"""Stage 7: every step is findable by run and position; each injected fault leaves its mark."""

import json
from dataclasses import asdict

import pytest

from fakes.scripted_model import ScriptedModel
from stages.s01_model.errors import CourseInputError
from stages.s02_tools.shop import load_shop
from stages.s06_resilience.resilience import Resilience
from stages.s07_tracing.agent import run
from stages.s07_tracing.tracer import FIELDS, Tracer, read_trace

QUICK = Resilience(timeout_s=0.05, attempts=2, backoff_s=0.0)
WHERE = [
    {"call": "order_status", "args": {"order_id": "A1001"}},
    {"call": "delivery_estimate", "args": {"order_id": "A1001"}},
    {"answer": "Shipped; 2 business days."},
]


def play(task, steps, **options):
    return run(task, ScriptedModel.from_steps(steps, task), resilience=QUICK, **options)


def test_a_run_has_an_id_and_numbered_steps_from_zero():
    trajectory = play("Where is A1001?", WHERE, run_id="run-1")
    assert trajectory.run_id == "run-1"
    assert [s.seq for s in trajectory.steps] == [0, 1, 2]
    assert {s.run_id for s in trajectory.steps} == {"run-1"}
    assert trajectory.kinds == ["tool_result", "tool_result", "answer"]
    assert trajectory.tools_called == ["order_status", "delivery_estimate"]
    assert trajectory.answer == "Shipped; 2 business days."


def test_run_ids_differ_between_runs_unless_given():
    first, second = play("Where is A1001?", WHERE), play("Where is A1001?", WHERE)
    assert first.run_id != second.run_id


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("fault", "kind", "answer"),
    [
        ({"fault": "tool_timeout"}, "tool_error", "Later."),
        ({"fault": "unknown_tool"}, "unknown_tool", "Later."),
        ({"fault": "malformed_args"}, "bad_arguments", "Later."),
        ({"fault": "never_answers"}, "run_limit", None),
        ({"fault": "empty_reply"}, "no_answer", None),
    ],
)
def test_each_injected_fault_leaves_its_own_step(fault, kind, answer):
    trajectory = play("Where is A1009?", [fault, {"answer": "Later."}], max_steps=3)
    assert kind in trajectory.kinds
    assert trajectory.answer == answer
    if answer is None:
        assert trajectory.stopped == kind


def test_a_trace_file_holding_many_runs_splits_back_into_them(tmp_path):
    path = tmp_path / "s07.jsonl"
    runs = [
        play("Where is A1001?", WHERE, trace_path=path),
        play("Hello?", [{"fault": "empty_reply"}], trace_path=path),
        play("Where is A1001?", WHERE, trace_path=path),
    ]
    from_file = read_trace(path)  # an independent source: the bytes on disk
    assert list(from_file) == [t.run_id for t in runs]
    for trajectory in runs:
        assert from_file[trajectory.run_id] == list(trajectory.steps)
    assert all(set(json.loads(line)) == set(FIELDS) for line in path.read_text().splitlines())


@pytest.mark.failure_mode
def test_a_trace_with_a_hole_in_seq_is_refused(tmp_path):
    path = tmp_path / "s07.jsonl"
    play("Where is A1001?", WHERE, trace_path=path, run_id="r1")
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], lines[2]]) + "\n")  # the middle step is lost
    with pytest.raises(CourseInputError, match=r"run r1: seq is \[0, 2\], expected 0..1"):
        read_trace(path)
    path.write_text("\n".join([lines[0], lines[1], lines[1]]) + "\n")  # a step twice
    with pytest.raises(CourseInputError, match=r"run r1: seq is \[0, 1, 1\], expected 0..2"):
        read_trace(path)


@pytest.mark.failure_mode
def test_a_trace_line_missing_a_field_is_named(tmp_path):
    path = tmp_path / "s07.jsonl"
    step = asdict(play("Hello?", [{"answer": "Hi."}]).steps[0])
    del step["run_id"]
    path.write_text(json.dumps(step) + "\n")
    with pytest.raises(CourseInputError, match=r"record 1: missing field 'run_id'"):
        read_trace(path)


@pytest.mark.failure_mode
def test_a_step_emitted_outside_a_run_is_refused():
    with pytest.raises(RuntimeError, match=r"before Tracer\.begin"):
        Tracer().emit("answer")


@pytest.mark.failure_mode
def test_a_refused_secret_is_not_in_the_trace_file(tmp_path):
    path = tmp_path / "s07.jsonl"
    steps = [
        {"call": "remember", "args": {"key": "card", "value": "4111-1111-1111-1111"}},
        {"answer": "I can't keep that."},
    ]
    trajectory = play("Keep my card.", steps, trace_path=path)
    assert trajectory.kinds == ["secret_refused", "answer"]
    assert "4111" not in path.read_text()


def test_a_blocked_return_is_recorded_with_its_tool_and_no_retry():
    steps = [
        {"call": "start_return", "args": {"order_id": "A1002", "reason": "small"}},
        {"answer": "Please confirm."},
    ]
    step = play("Return A1002.", steps).steps[0]
    assert (step.kind, step.tool, step.attempts) == ("blocked", "start_return", 0)


def test_each_run_gets_a_fresh_shop_unless_one_is_shared():
    steps = [
        {"call": "start_return", "args": {"order_id": "A1002", "reason": "small"}},
        {"answer": "Done."},
    ]
    approve = {"approve": lambda call: True}
    fresh = [play("Return A1002.", steps, **approve).steps[0].text for _ in range(2)]
    assert all(text.startswith("Return R-A1002 started") for text in fresh)
    shared = load_shop()
    texts = [play("Return A1002.", steps, shop=shared, **approve).steps[0].text for _ in range(2)]
    assert texts[1] == "A return for order A1002 is already open (R-A1002)."


def test_the_demo_splits_five_runs_back_out_of_one_file(cli, tmp_path):
    trace = tmp_path / "s07.jsonl"
    result = cli("stages.s07_tracing", "--trace", str(trace))
    assert result.returncode == 0, result.stderr
    assert len(read_trace(trace)) == 5
    for kind in ("tool_error", "unknown_tool", "run_limit", "no_answer"):
        assert kind in result.stdout
