# Two commands on a fresh machine:  make lab   |   make test
# Both build .venv from pyproject.toml the first time; later runs reuse it.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
CROSSCHECK_STAMP := $(VENV)/.crosscheck-installed
NOTEBOOKS := $(sort $(wildcard notebooks/*.ipynb notebooks/solutions/*.ipynb))
# JupyterLab refuses to run as root unless told; pass the flag only then.
ROOT_FLAG := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)
LAB_ARGS ?=
# Small matrices on a few cores: OpenBLAS threads cost more than they save (measured here:
# a 1200 x 27 least-squares fit took 35 ms with threads, 0.85 ms without). Kernels inherit it.
export OPENBLAS_NUM_THREADS ?= 1
NBVAL_ARGS := --nbval --nbval-current-env --nbval-cell-timeout=120 \
              --nbval-sanitize-with tests/nbval_sanitize.cfg

.PHONY: setup lab test lint unit nbval regen nav bench clean crosscheck

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@# Build matplotlib's font cache now, so no notebook prints the notice on stderr.
	MPLBACKEND=Agg $(BIN)/python -c "import matplotlib.pyplot"
	touch $(STAMP)

lab: $(STAMP)
	$(BIN)/jupyter lab --ServerApp.ip=127.0.0.1 $(ROOT_FLAG) $(LAB_ARGS) notebooks/00_index.ipynb

test: lint unit nbval

lint: $(STAMP)
	$(BIN)/ruff check .

unit: $(STAMP)
	$(BIN)/python -m pytest -q

nbval: $(STAMP)
	$(BIN)/python -m pytest -q $(NBVAL_ARGS) $(NOTEBOOKS)

# Re-execute every notebook in a fresh kernel, then clean it (outputs and counts kept).
regen: $(STAMP)
	$(BIN)/python scripts/navigation.py
	$(BIN)/python scripts/regen.py $(NOTEBOOKS)

nav: $(STAMP)
	$(BIN)/python scripts/navigation.py

clean:
	rm -rf $(VENV) test-artifacts

# Optional conformance check: pe_helpers.rope_scaling against transformers' RoPE init functions.
# Adds the crosscheck extra (transformers, torch==2.13.0: the CPU wheel pip finds on these
# machines) to the same .venv once. tests/crosscheck runs only here, by path; --noconftest skips
# the matplotlib set-up of the other tests, which it does not need.
$(CROSSCHECK_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,crosscheck]'
	touch $(CROSSCHECK_STAMP)

crosscheck: $(CROSSCHECK_STAMP)
	$(BIN)/python -m pytest -q --noconftest tests/crosscheck

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_pe.py
	$(BIN)/python benchmarks/bench_sliders.py
	$(BIN)/python benchmarks/bench_nbval.py
	$(BIN)/python benchmarks/bench_training.py
