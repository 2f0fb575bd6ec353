"""Bias detectors and their mirrored halves: the steady judge must come out clean."""

import json

import pytest

from fakes.judges import (
    BiasedJudge,
    ProseJudge,
    SteadyJudge,
    favours_second_slot,
    point_per_25_chars,
)
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.detectors import (
    LENGTH_FILE,
    POSITION_FILE,
    describe_length,
    describe_position,
    length_bias,
    load_length_pairs,
    load_position_pairs,
    position_bias,
)


@pytest.fixture(scope="module")
def position_pairs():
    return load_position_pairs()


@pytest.fixture(scope="module")
def length_pairs():
    return load_length_pairs()


def test_every_position_pair_leaves_nothing_to_prefer_but_the_slot():
    # Read the fixture directly, not through the loader that enforces the same rules.
    for pair in json.loads(POSITION_FILE.read_text()):
        assert len(pair["a"]) == len(pair["b"]), pair
        assert pair["facts"] and all(f in pair["a"] and f in pair["b"] for f in pair["facts"])


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        (lambda p: p[0].update(b=p[0]["b"] + "!"), "pair 1: a has 58 characters and b 59"),
        (lambda p: p[1].update(facts=["3 business days"]), "pair 2: both answers must state"),
        (lambda p: p[2].pop("facts"), "pair 3: needs task, a, b, facts"),
    ],
)
def test_a_pair_that_could_be_judged_on_merit_is_refused(tmp_path, edit, fragment):
    pairs = json.loads(POSITION_FILE.read_text())
    edit(pairs)
    path = tmp_path / "pairs.json"
    path.write_text(json.dumps(pairs))
    with pytest.raises(CourseInputError, match=fragment):
        load_position_pairs(path)


def test_position_bias_is_found_on_every_pair_of_the_biased_judge(position_pairs):
    result = position_bias(BiasedJudge(), position_pairs)
    assert describe_position(result) == f"FOUND — {len(position_pairs)} of {len(position_pairs)}"


@pytest.mark.failure_mode
def test_the_mirrored_half_finds_no_position_bias_in_the_steady_judge(position_pairs):
    result = position_bias(SteadyJudge(), position_pairs)
    assert describe_position(result) == f"agreement — 0 of {len(position_pairs)}"
    # the steady judge calls these pairs ties; a tie must stay a tie in both orders
    assert all(ab == ba == "tie" for _, ab, ba in result.verdicts)


@pytest.mark.failure_mode
def test_a_judge_favouring_the_second_slot_is_caught_by_the_same_detector(position_pairs):
    assert position_bias(favours_second_slot(), position_pairs).flips == len(position_pairs)


@pytest.mark.failure_mode
def test_a_judge_that_cannot_answer_is_not_evaluated_not_unbiased(position_pairs, length_pairs):
    assert position_bias(ProseJudge(), position_pairs).state == "not_evaluated"
    assert length_bias(ProseJudge(), length_pairs).state == "not_evaluated"


def test_length_bias_is_found_with_the_gap_per_pair(length_pairs):
    result = length_bias(BiasedJudge(), length_pairs)
    assert result.state == "found" and result.found == len(length_pairs)
    # pair 1: grounding 6 of 12 reference words -> 5, plus 41 // 40 = 1 -> 6;
    # padded to 41 + 85 = 126 characters -> 5 + 126 // 40 = 8
    assert describe_length(result)[1] == (
        "  When does delivery arrive?: 6 -> 8 (+2 for 85 extra characters)"
    )


@pytest.mark.failure_mode
def test_the_mirrored_half_finds_no_length_bias_in_the_steady_judge(length_pairs):
    result = length_bias(SteadyJudge(), length_pairs)
    assert result.state == "agreement" and result.found == 0
    assert all(gap.before == gap.after for gap in result.gaps)


@pytest.mark.failure_mode
def test_a_judge_greedy_for_length_in_other_units_is_caught_too(length_pairs):
    result = length_bias(point_per_25_chars(), length_pairs)
    assert result.found == len(length_pairs)
    # pair 1: 126 // 25 - 41 // 25 = 4 more points; pair 2: 9 -> 10, held at the cap of 10
    assert [(g.before, g.after) for g in result.gaps] == [(6, 10), (9, 10)]


@pytest.mark.failure_mode
def test_padding_that_carries_content_is_refused(tmp_path):
    pairs = json.loads(LENGTH_FILE.read_text())
    pairs[0]["padding"] += " Tracking arrives by email."
    path = tmp_path / "pairs.json"
    path.write_text(json.dumps(pairs))
    with pytest.raises(CourseInputError, match=r"pair 1: the padding is not content-free"):
        load_length_pairs(path)
