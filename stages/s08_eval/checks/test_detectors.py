"""The two bias detectors (position.py, length.py) and their mirrored halves: the steady judge
must come out clean."""

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
from stages.s08_eval.findings import Finding
from stages.s08_eval.judge import Reading
from stages.s08_eval.length import LENGTH_FILE, Gap, LengthResult, length_bias, load_length_pairs
from stages.s08_eval.position import (
    POSITION_FILE,
    PositionPair,
    PositionResult,
    both_orders,
    load_position_pairs,
    position_bias,
)
from stages.s08_eval.render import describe_length, describe_position


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
        (
            lambda p: p[0].update(b=p[0]["b"] + "!"),
            "pair 1: a has 58 characters and b 59; a pair must be the same length, or a flip "
            "could be a judgement",
        ),
        (lambda p: p[1].update(facts=["3 business days"]), "pair 2: both answers must state"),
        (lambda p: p[2].pop("facts"), "pair 3: needs task, a, b, facts"),
    ],
)
def test_a_pair_that_could_be_judged_on_merit_is_refused(tmp_path, edit, fragment):
    pairs = json.loads(POSITION_FILE.read_text())
    edit(pairs)
    path = tmp_path / "pairs.json"
    path.write_text(json.dumps(pairs))
    with pytest.raises(CourseInputError) as raised:
        load_position_pairs(path)
    assert str(raised.value).startswith(f"{path}: {fragment}")


def test_position_bias_is_found_on_every_pair_of_the_biased_judge(position_pairs):
    result = position_bias(BiasedJudge(), position_pairs)
    assert describe_position(result) == f"FOUND — {len(position_pairs)} of {len(position_pairs)}"


@pytest.mark.failure_mode
def test_the_mirrored_half_finds_no_position_bias_in_the_steady_judge(position_pairs):
    result = position_bias(SteadyJudge(), position_pairs)
    assert describe_position(result) == f"none found — 0 of {len(position_pairs)}"
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
    assert result.state == "not_found" and result.found == 0
    assert all(gap.before == gap.after for gap in result.gaps)


@pytest.mark.failure_mode
def test_a_judge_greedy_for_length_in_other_units_is_caught_too(length_pairs):
    result = length_bias(point_per_25_chars(), length_pairs)
    assert result.found == len(length_pairs)
    # pair 1: 126 // 25 - 41 // 25 = 4 more points; pair 2: 9 -> 10, held at the cap of 10
    assert [(g.before, g.after) for g in result.gaps] == [(6, 10), (9, 10)]


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("extra", "added"),
    [(" Tracking arrives by email.", "['email', 'tracking']"), (" Open 24h.", "[]")],
)
def test_padding_that_carries_content_is_refused(tmp_path, extra, added):
    pairs = json.loads(LENGTH_FILE.read_text())
    pairs[0]["padding"] += extra
    path = tmp_path / "pairs.json"
    path.write_text(json.dumps(pairs))
    with pytest.raises(CourseInputError) as raised:
        load_length_pairs(path)
    assert str(raised.value) == (
        f"{path}: pair 1: the padding is not content-free (reference words {added} "
        f"or a number in {pairs[0]['padding']!r})"
    )


class AnswersEveryOtherCall:
    """Replies 'first' / '5' on odd calls and in prose on even ones; remembers each task."""

    def __init__(self):
        self.calls = 0
        self.tasks = []

    def _reply(self, task, good):
        self.calls += 1
        self.tasks.append(task)
        return good if self.calls % 2 else "let me think about it"

    def score(self, task, answer, reference):
        return self._reply(task, "5")

    def compare(self, task, first, second):
        return self._reply(task, "first")


@pytest.mark.failure_mode
def test_a_pair_unscored_in_one_order_counts_for_nothing(position_pairs, length_pairs):
    judge = AnswersEveryOtherCall()
    position = position_bias(judge, position_pairs)
    assert (position.state, position.flips, position.pairs, position.unscored) == (
        "not_evaluated",
        0,
        3,
        3,
    )
    assert [(ab, ba) for _, ab, ba in position.verdicts] == [("a", None)] * 3
    swap = both_orders(AnswersEveryOtherCall(), "t", "x", "y")  # 'first', then prose
    assert (swap.ab, swap.ba, swap.usable) == ("a", None, False)
    assert swap.unscored == (Reading(None, "let me think about it", "unparseable reply"),)
    length = length_bias(judge, length_pairs)
    assert (length.state, length.found, length.unscored) == ("not_evaluated", 0, 2)
    assert [(g.before, g.after) for g in length.gaps] == [(5, None), (5, None)]
    assert describe_length(length) == [
        "NOT EVALUATED — too little usable data: 0 usable of 2, 2 unscored "
        "(needs at least 2 and 50%)",
        *(f"  {pair.task}: unscored" for pair in length_pairs),
    ]
    # every question named its task
    assert judge.tasks == [p.task for p in position_pairs for _ in "ab"] + [
        p.task for p in length_pairs for _ in "ab"
    ]


def test_a_gap_with_one_side_unscored_is_shown_as_unscored():
    gaps = [Gap("t0", 4, None, 40), Gap("t1", 3, 5, 40), Gap("t2", 4, 4, 40)]
    # 3 pairs, 1 unscored: the gain is counted over the 2 that were scored both ways
    assert describe_length(LengthResult(Finding.FOUND, 1, 3, 1, gaps=gaps)) == [
        "FOUND — 1 of 2 (1 of 3 unscored)",
        "  t0: unscored",
        "  t1: 3 -> 5 (+2 for 40 extra characters)",
        "  t2: 4 -> 4 (+0 for 40 extra characters)",
    ]


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[]", "expected a non-empty list of pairs"),
        ('{"task": "t"}', "expected a non-empty list of pairs"),
        ('[{"task": "t", "a": "x"}]', "pair 1: needs task, a, b, facts"),
        ('[{"task": "t", "a": "ab", "b": "ba", "facts": ["a"]}]', ""),
    ],
)
def test_a_pair_file_of_the_wrong_shape_is_named(tmp_path, content, message):
    path = tmp_path / "pairs.json"
    path.write_text(content)
    if not message:  # a fact both answers state: accepted
        assert load_position_pairs(path) == [PositionPair("t", "ab", "ba", ("a",))]
        return
    with pytest.raises(CourseInputError) as raised:
        load_position_pairs(path)
    assert str(raised.value) == f"{path}: {message}"


@pytest.mark.failure_mode
def test_a_fact_stated_by_one_answer_only_is_refused(tmp_path):
    path = tmp_path / "pairs.json"
    path.write_text('[{"task": "t", "a": "in 2 days", "b": "in 3 days", "facts": ["2 days"]}]')
    with pytest.raises(CourseInputError) as raised:
        load_position_pairs(path)
    assert str(raised.value) == f"{path}: pair 1: both answers must state every fact; ['2 days']"


def test_a_partly_unscored_result_says_how_many_pairs_it_could_not_use():
    found = PositionResult(Finding.FOUND, 1, 3, 1)
    assert describe_position(found) == "FOUND — 1 of 2 (1 of 3 unscored)"
    clean = PositionResult(Finding.NOT_FOUND, 0, 4, 2)
    assert describe_position(clean) == "none found — 0 of 2 (2 of 4 unscored)"


class FlipsOnce:
    """Prefers the first slot on the first pair only, and cannot be read on the last."""

    def __init__(self, pairs):
        self.first_task, self.last_task = pairs[0].task, pairs[-1].task

    def score(self, task, answer, reference):
        raise AssertionError("the position detector only compares")

    def compare(self, task, first, second):
        if task == self.last_task:
            return "hmm"
        return "first" if task == self.first_task else "tie"


@pytest.mark.failure_mode
def test_too_few_usable_pairs_are_not_evaluated_whatever_they_show(position_pairs):
    # 3 pairs: the first flips, the second ties both ways, the third is unreadable.
    # 2 usable of 3 (at least MIN_USABLE = 2 and at least half): the flip is a finding.
    judge = FlipsOnce(position_pairs)
    result = position_bias(judge, position_pairs)
    assert (result.state, result.flips, result.unscored) == (Finding.FOUND, 1, 1)
    # the same judge on the first and the last pair only: 1 usable of 2 is too little,
    # even though the one usable pair flipped
    two = [position_pairs[0], position_pairs[-1]]
    result = position_bias(judge, two)
    assert (result.state, result.flips, result.unscored) == (Finding.NOT_EVALUATED, 1, 1)
    assert result.reason == (
        "too little usable data: 1 usable of 2, 1 unscored (needs at least 2 and 50%)"
    )
