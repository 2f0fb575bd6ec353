"""Measured, not assumed: the trace survey reads source; the sampler samples, not schedules."""

import itertools
import random
import shutil

import pytest

from stages.s08_eval.sampling import RATE, TOLERANCE, keep, sample
from stages.s08_eval.survey import STAGES_DIR, survey

REQUESTS = [f"request-{n:04d}" for n in range(1000)]


def test_the_survey_finds_which_earlier_stages_carry_a_run_key():
    found = survey()
    assert list(found.stages) == [
        f"s0{n}_{name}"
        for n, name in enumerate(
            ["model", "tools", "loop", "retrieval", "memory", "resilience", "tracing"], start=1
        )
    ]
    assert found.stages["s01_model"] == ["content", "role"]
    assert "run_id" in found.stages["s07_tracing"]
    assert found.without_run_key == list(found.stages)[:6]


@pytest.mark.failure_mode
def test_the_survey_changes_when_the_stages_do(tmp_path):
    stages = tmp_path / "stages"
    shutil.copytree(STAGES_DIR, stages, ignore=shutil.ignore_patterns("__pycache__", "s08_*"))
    # a new stage that writes run ids, and stage 7 losing its run key
    (stages / "s07_extra").mkdir()
    (stages / "s07_extra" / "log.py").write_text(
        'def log(trace, run):\n    trace.write({"run_id": run, "event": "start"})\n'
    )
    (stages / "s07_extra" / "more.py").write_text(
        'def more(trace):\n    trace.write({"phase": 1, 2: "not a field"})\n'
    )
    (stages / "s07_extra" / "checks").mkdir()
    (stages / "s07_extra" / "checks" / "test_it.py").write_text('x.write({"from_a_check": 1})\n')
    (stages / "s05_notes.txt").write_text("not a stage")
    (stages / "s99_future").mkdir()
    (stages / "s99_future" / "later.py").write_text('trace.write({"run_id": 1, "later": 2})\n')
    tracer = stages / "s07_tracing" / "tracer.py"
    tracer.write_text(tracer.read_text().replace('"run_id": step.run_id,', ""))
    found = survey(stages)
    assert found.stages["s07_extra"] == ["event", "phase", "run_id"]
    assert "s99_future" not in found.stages  # stage 8 surveys the stages before it
    assert "s07_tracing" in found.without_run_key
    assert "s07_extra" not in found.without_run_key


@pytest.mark.failure_mode
def test_about_a_tenth_is_sampled_and_not_exactly_a_tenth():
    sent = sample(REQUESTS, seed=8)
    target = len(REQUESTS) * RATE
    assert abs(len(sent) - target) <= TOLERANCE
    assert len(sent) != target  # exactly 100 of 1000 would be a schedule


@pytest.mark.failure_mode
def test_the_sample_is_not_a_schedule():
    indices = [REQUESTS.index(request) for request in sample(REQUESTS, seed=8)]
    gaps = {b - a for a, b in itertools.pairwise(indices)}
    assert len(gaps) > 3  # every-tenth would leave one gap size


def test_the_same_seed_keeps_the_same_requests_in_any_order():
    shuffled = REQUESTS[:]
    random.Random(1).shuffle(shuffled)
    assert set(sample(shuffled, seed=8)) == set(sample(REQUESTS, seed=8))


def test_another_seed_keeps_other_requests():
    assert set(sample(REQUESTS, seed=8)) != set(sample(REQUESTS, seed=9))
    assert keep("request-0001", seed=8) == keep("request-0001", seed=8)


def test_the_rate_is_honoured():
    # rate 0.5 over 1,000: binomial, mean 500, deviation sqrt(1000 * 0.25) = 15.8
    assert abs(len(sample(REQUESTS, seed=8, rate=0.5)) - 500) <= 60
