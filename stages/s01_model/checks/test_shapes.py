"""A record's fields, read from JSON, checked against the types its dataclass gives them."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from stages.s01_model.shapes import misfit


@dataclass(frozen=True)
class Reading:
    name: str
    kappa: float | None
    interval: tuple[float, float]
    scores: tuple[int, ...]
    settings: dict[str, str]
    passed: bool | None = None


GOOD = {"name": "m", "kappa": 0.5, "interval": [0, 1], "scores": [3, 4], "settings": {}}


def test_a_record_that_holds_its_types_fits_whole_numbers_as_floats_and_null_where_allowed():
    assert misfit(Reading, GOOD) is None
    assert misfit(Reading, {**GOOD, "kappa": None, "interval": [0.25, 1], "passed": True}) is None
    assert misfit(Reading, {"kappa": 1}) is None  # a field not there is not this check's


@pytest.mark.failure_mode
@pytest.mark.parametrize(
    ("change", "why"),
    [({"kappa": "high"}, 'kappa is "high", expected a number or null'),
     ({"kappa": True}, "kappa is true, expected a number or null"),
     ({"kappa": float("nan")}, "kappa is NaN, expected a number or null"),
     ({"interval": [0.5]}, "interval is [0.5], expected a list of 2 numbers"),
     ({"interval": "0-1"}, 'interval is "0-1", expected a list of 2 numbers'),
     ({"scores": [3, 4.5]}, "scores is [3, 4.5], expected a list of whole numbers"),
     ({"name": None}, "name is null, expected text"),
     ({"settings": ["t"]}, 'settings is ["t"], expected an object'),
     ({"passed": 1}, "passed is 1, expected true or false or null")],
)  # fmt: skip
def test_a_field_of_the_wrong_type_is_named_with_what_it_holds_and_should(change, why):
    assert misfit(Reading, {**GOOD, **change}) == why


def test_a_long_value_is_shown_cut_to_forty_characters_and_long_text_is_still_text():
    assert misfit(Reading, {**GOOD, "name": "x" * 60}) is None
    found = misfit(Reading, {**GOOD, "kappa": "x" * 60})
    assert found == f'kappa is "{"x" * 36}..., expected a number or null'
