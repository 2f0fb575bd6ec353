"""The calibration set and its twins: human labels that hold together, twins that add nothing."""

import json
import re

import pytest

from fakes.padder import concise, padded
from stages.s01_model.errors import CourseInputError
from stages.s08_eval.levels import PASS_MARK
from stages.s09_calibration.calibration import CALIBRATION_FILE, CalCase, load_calibration
from stages.s09_calibration.twins import TWINS_FILE, Twins, added_facts, load_twins, twin_problems

CASES = load_calibration()
BY_ID = {case.id: case for case in CASES}


def make_twins(cases: list[CalCase]) -> dict[str, Twins]:
    """The twins the padder makes now, by case id: what fixtures/twins.json must hold."""
    return {
        case.id: Twins(
            case.id, padded(case.question, case.answer), concise(case.answer, case.facts)
        )
        for case in cases
    }


def test_the_set_has_two_families_of_equal_quality_by_the_human_labels():
    assert 40 <= len(CASES) <= 60
    for family in ("bullets", "prose"):
        scores = sorted(c.human_score for c in CASES if c.family == family)
        assert len(scores) == len(CASES) // 2
    pairs: dict[str, list[CalCase]] = {}
    for case in CASES:
        pairs.setdefault(case.pair, []).append(case)
    for members in pairs.values():
        assert {m.family for m in members} == {"bullets", "prose"}
        assert len({(m.human_score, m.human_pass, m.facts, m.question) for m in members}) == 1
        assert abs(len(members[0].answer) - len(members[1].answer)) <= 5


def test_the_expensive_failure_modes_are_all_present():
    modes = {case.mode for case in CASES}
    assert {"wordy-wrong", "terse", "restates", "hedges"} <= modes
    # confidently wrong and wordy is what a length-biased judge passes: it must be failed here
    assert all(not c.human_pass for c in CASES if c.mode == "wordy-wrong")
    assert all(c.human_pass for c in CASES if c.mode == "terse")


def test_the_house_styles_are_distinct():
    for case in CASES:
        styled = case.answer.startswith("Great question!") and "\n- " in case.answer
        plain = not case.answer.startswith("Great question!") and "\n- " not in case.answer
        assert styled if case.family == "bullets" else plain, case.id


def test_no_question_shares_a_word_with_its_facts():
    # restating the question, as the padder does, must never add a fact
    for case in CASES:
        question = set(re.findall(r"[a-z0-9]+", case.question.lower()))
        facts = {w for f in case.facts for w in re.findall(r"[a-z0-9]+", f.lower())}
        assert not question & facts, case.id


@pytest.mark.failure_mode
def test_a_label_that_disagrees_with_the_gate_is_refused(tmp_path):
    data = json.loads(CALIBRATION_FILE.read_text())
    data[0]["human_pass"] = not data[0]["human_pass"]
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CourseInputError) as raised:
        load_calibration(path)
    assert str(raised.value).startswith(f"{path}: case 'q01-bullets': human_score")
    assert str(raised.value).endswith(f"disagree at the gate of {PASS_MARK}")


def test_the_committed_twins_are_the_padder_s_output():
    committed = load_twins(CASES)
    assert make_twins(CASES) == committed


@pytest.mark.failure_mode
def test_no_twin_adds_a_fact_and_no_concise_twin_loses_one():
    # every twin, not a sample: those in the fixture, and those the padder makes now
    for twins in (load_twins(CASES), make_twins(CASES)):
        assert {case.id: twin_problems(case, twins[case.id]) for case in CASES} == {
            case.id: [] for case in CASES
        }


@pytest.mark.failure_mode
def test_the_loader_refuses_a_twin_that_adds_a_fact_or_is_missing(tmp_path):
    rows = json.loads(TWINS_FILE.read_text())
    rows[0]["padded"] += " It arrives in 3 days."
    path = tmp_path / "twins.json"
    path.write_text(json.dumps(rows))
    with pytest.raises(CourseInputError) as raised:
        load_twins(CASES, path)
    assert str(raised.value) == f"{path}: twins of {rows[0]['id']!r}: padded twin adds figure 3"
    path.write_text(json.dumps(rows[1:]))
    with pytest.raises(CourseInputError, match=f"no twins for case {rows[0]['id']!r}"):
        load_twins(CASES, path)


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        (" It arrives in 3 days.", "figure 3"),
        (" Ask Harbor support.", "name Harbor"),
        (" It goes to the original card.", "fact word 'original'"),
        (" Expect 5 business days.", "fact '5 business days'"),
    ],
)
def test_the_validator_catches_a_twin_that_adds_something(extra, problem):
    case = BY_ID["q11-prose"]  # restates the question: none of its facts, none of their words
    assert added_facts(case, padded(case.question, case.answer)) == []
    assert problem in added_facts(case, padded(case.question, case.answer) + extra)


def test_padded_twins_are_longer_and_concise_twins_shorter_or_equal():
    twins = load_twins(CASES)
    for case in CASES:
        assert len(twins[case.id].padded) > len(case.answer)
        assert len(twins[case.id].concise) <= len(case.answer)
        assert concise(case.answer, list(case.facts)) == twins[case.id].concise


def test_the_hand_written_padded_twins_share_the_padder_s_fingerprint():
    # A person asked to "make it more thorough" wrote these; the padder stands in for that
    # person. Both prepend a restatement, keep the answer whole, and grow by a similar share.
    by_hand = json.loads((CALIBRATION_FILE.parent / "padded_by_hand.json").read_text())
    assert len(by_hand) >= 5
    for entry in by_hand:
        case = BY_ID[entry["id"]]
        machine = padded(case.question, case.answer)
        assert case.answer in entry["padded"] and case.answer in machine
        assert not entry["padded"].startswith(case.answer)  # something is prepended
        assert added_facts(case, entry["padded"]) == []
        growth_by_hand = len(entry["padded"]) / len(case.answer)
        growth_machine = len(machine) / len(case.answer)
        assert 1.1 < growth_by_hand < 3.5 and 1.1 < growth_machine < 3.5, entry["id"]
