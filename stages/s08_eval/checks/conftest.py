"""Shared material for the stage-8 checks: the course's cases, run once through the agent."""

import pytest

from stages.s08_eval.cases import load_cases, run_case


@pytest.fixture(scope="session")
def runs():
    """Every case of fixtures/cases.json, run through the stage-7 agent, by id."""
    return {case.id: run_case(case) for case in load_cases()}
