# mtlib: two commands on a fresh machine with Python 3.11 and pip.
#   make reproduce   install into .venv, run every notebook in the quick profile
#                    (PROFILE=real|smoke|paper|path.yaml, ONLY=01,04, PARAMS="02.layer=-3 03.seed=1")
#   make test        install into .venv, run the whole test suite
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.mtlib-installed
PROFILE ?= quick
ONLY ?=
PARAMS ?=

.PHONY: install test reproduce smoke paper bench lab clean-outputs help

help:
	@echo "make reproduce | test | smoke | paper | bench | lab   (PROFILE=quick ONLY=01,04)"

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install torch==2.13.0
	$(PY) -m pip install -e ".[notebooks,test]"
	@touch $(STAMP)

install: $(STAMP)

test: install
	$(PY) -m pytest -q

reproduce: install
	$(PY) -m mtlib.run --profile $(PROFILE) $(if $(ONLY),--only $(ONLY)) $(foreach x,$(PARAMS),-p $(x))

smoke: install
	$(PY) -m mtlib.run --profile smoke $(if $(ONLY),--only $(ONLY))

paper: install
	$(PY) -m mtlib.run --profile paper $(if $(ONLY),--only $(ONLY))

bench: install
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

lab: install
	$(PY) -m ipykernel install --sys-prefix --name mtlib --display-name "Python (mtlib)"
	$(VENV)/bin/jupyter lab notebooks/

clean-outputs:
	rm -rf figures/smoke figures/quick figures/paper papermill_runs/smoke papermill_runs/quick papermill_runs/paper
