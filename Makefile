# Two commands set everything up on a machine with python3 and make:
#   make report   every stage's demo, offline
#   make check    ruff, mypy and every stage's checks, offline
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
STAGES := $(sort $(wildcard stages/s[0-9][0-9]_*))

.PHONY: report check lint typecheck test clean

# The environment is rebuilt when pyproject.toml (where the pins live) changes.
$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check '.[dev]'
	@touch $(STAMP)

report: $(STAMP)
	@set -e; for stage in $(STAGES); do \
		echo "== $$stage"; \
		$(PY) -m $$(echo $$stage | tr / .); \
	done

check: lint typecheck test

lint: $(STAMP)
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy

test: $(STAMP)
	$(PY) -m pytest

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis mutants build
