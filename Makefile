# mtlib: two commands on a fresh machine with Python 3.11 and pip.
#   make reproduce   install into .venv, run every notebook in the quick profile
#                    (PROFILE=real|smoke|paper|path.yaml, ONLY=01,04, PARAMS="02.layer=-3 03.seed=1")
#   make test        install into .venv, run the whole test suite
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.mtlib-installed
KERNEL := $(VENV)/share/jupyter/kernels/mtlib/kernel.json
PROFILE ?= quick
ONLY ?=
PARAMS ?=

.PHONY: install kernel hooks notebooks-fix check test reproduce smoke paper bench lab clean-outputs help

help:
	@echo "make reproduce | test | smoke | paper | bench | lab | hooks | notebooks-fix   (PROFILE=quick ONLY=01,04)"

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install torch==2.13.0
	$(PY) -m pip install -e ".[notebooks,test,cluster]"
	@touch $(STAMP)

# the kernel every notebook names (metadata.kernelspec.name = mtlib)
$(KERNEL): $(STAMP)
	$(PY) -m ipykernel install --sys-prefix --name mtlib --display-name "Python (mtlib)"

kernel: $(KERNEL)

install: $(STAMP) $(KERNEL)

# refuse commits of notebooks with outputs or volatile metadata (.githooks/pre-commit)
hooks:
	git config core.hooksPath .githooks

# clear outputs and write the canonical metadata of every notebook
notebooks-fix: install
	$(PY) -m mtlib.run.notebooks --fix notebooks/*.ipynb

# lint, format and types (rules in pyproject.toml); make test runs it first
check: install
	$(VENV)/bin/ruff check mtlib tests benchmarks notebooks
	$(VENV)/bin/ruff format --check mtlib tests benchmarks
	$(VENV)/bin/mypy

# two workers (2-core CI): the smoke runs stay together on one (xdist groups)
test: install check
	$(PY) -m pytest -q -n 2 --dist loadgroup

reproduce: install
	$(PY) -m mtlib.run --profile $(PROFILE) $(if $(ONLY),--only $(ONLY)) $(foreach x,$(PARAMS),-p $(x))

smoke: install
	$(PY) -m mtlib.run --profile smoke $(if $(ONLY),--only $(ONLY))

paper: install
	$(PY) -m mtlib.run --profile paper $(if $(ONLY),--only $(ONLY))

bench: install
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

lab: install
	$(VENV)/bin/jupyter lab notebooks/

clean-outputs:
	rm -rf figures/smoke figures/quick figures/paper papermill_runs/smoke papermill_runs/quick papermill_runs/paper
