# Two commands on a fresh machine:  make lab   |   make test
# Both build .venv from pyproject.toml the first time; later runs reuse it.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
CROSSCHECK_STAMP := $(VENV)/.crosscheck-installed
SITE_STAMP := $(VENV)/.site-installed
NOTEBOOKS := $(sort $(wildcard notebooks/*.ipynb notebooks/solutions/*.ipynb))
# JupyterLab refuses to run as root unless told; pass the flag only then.
ROOT_FLAG := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)
LAB_ARGS ?=
# Small matrices on a few cores: OpenBLAS threads cost more than they save (measured here:
# a 1200 x 27 least-squares fit took 35 ms with threads, 0.85 ms without). Kernels inherit it.
export OPENBLAS_NUM_THREADS ?= 1
NBVAL_ARGS := --nbval --nbval-current-env --nbval-cell-timeout=120 \
              --nbval-sanitize-with tests/nbval_sanitize.cfg
# pytest-xdist: one worker per core; --dist loadfile keeps a notebook's cells in one kernel and a
# test file's module fixtures (a JupyterLab server, a browser) in one worker. Measured on 2 cores:
# unit 328 -> 265 s, strict nbval 108 -> 62 s. `make test WORKERS=0` runs them in one process.
WORKERS ?= auto
PARALLEL := $(if $(filter 0,$(WORKERS)),,-n $(WORKERS) --dist loadfile)

# The tools the targets below run. A missing one (a half-deleted .venv) makes the stamp
# out of date, so the next `make` reinstalls instead of dying with "Error 127".
TOOLS  := $(BIN)/python $(BIN)/ruff $(BIN)/jupyter $(BIN)/pytest
# Each tool but python, and the package that installs it: a tool deleted from bin/ while pip
# still lists its package is not put back by `pip install` ("already satisfied"), so the stamp's
# recipe uninstalls that package first.
TOOL_PACKAGES := ruff:ruff jupyter:jupyter-core pytest:pytest
# A .venv whose python runs but cannot import pip (pip uninstalled, an upgrade cut short) is out
# of date whatever its stamp says: the stamp then depends on FORCE, and its recipe heals it.
PIP_MISSING := $(shell [ -x $(BIN)/python ] && ! $(BIN)/python -c "import pip" >/dev/null 2>&1 \
                 && echo yes)
# `make test-oldest`: the declared minimum of every runtime dependency, in its own venv.
OLDEST       := .venv-oldest
OLDEST_BIN   := $(OLDEST)/bin
OLDEST_STAMP := $(OLDEST)/.installed
OLDEST_NOTEBOOKS := notebooks/01_why_position.ipynb
# `make site`: the website's output, and everything it is built from.
SITE        := build/site
SITE_INDEX  := $(SITE)/index.html
# The site's live figures are drawn from the package (and its shipped models): a change there
# redraws them.
SITE_INPUTS := $(NOTEBOOKS) $(wildcard docs/*.md docs/guide/*.md site/*.py site/static/*) \
               scripts/build_site.py scripts/navigation.py \
               $(shell find pe_helpers \( -name '*.py' -o -name '*.json' -o -name '*.npz' \) 2>/dev/null)

.PHONY: setup lab test lint unit nbval nbval-other-cpu regen nav version bench clean test-oldest \
        crosscheck site bench-site experiments models confirm FORCE

setup: $(STAMP)

# A .venv whose python cannot run pip gets it back from ensurepip (the packages stay); if that
# fails too (a `python3 -m venv` that failed half-way, or a python that was removed) the .venv
# is rebuilt from scratch. A healthy one is reused.
$(STAMP): pyproject.toml $(TOOLS) $(if $(PIP_MISSING),FORCE)
	@$(BIN)/python -m pip --version >/dev/null 2>&1 || { \
	  [ -x $(BIN)/python ] && echo "$(VENV) has no working pip: restoring it (ensurepip)" && \
	  $(BIN)/python -m ensurepip --upgrade >/dev/null 2>&1 && \
	  $(BIN)/python -m pip --version >/dev/null 2>&1; } || { \
	  echo "$(VENV) is missing or has no working pip: rebuilding it"; \
	  rm -rf $(VENV); \
	  $(PYTHON) -m venv $(VENV) || { \
	    echo "'$(PYTHON) -m venv' failed: install venv support (Debian: python3-venv)"; \
	    exit 1; }; }
	$(BIN)/python -m pip install --quiet --upgrade pip
	@for pair in $(TOOL_PACKAGES); do \
	  test -x $(BIN)/$${pair%%:*} || { \
	    echo "$(BIN)/$${pair%%:*} is missing: reinstalling $${pair#*:}"; \
	    $(BIN)/python -m pip uninstall --quiet --yes $${pair#*:} >/dev/null 2>&1 || true; }; \
	done
	$(BIN)/python -m pip install --quiet -e '.[test,hub]'
	@# Build matplotlib's font cache now, so no notebook prints the notice on stderr.
	MPLBACKEND=Agg $(BIN)/python -c "import matplotlib.pyplot"
	@for tool in $(TOOLS); do test -x $$tool || { \
	  echo "$$tool is still missing after the install: run make clean, then make setup"; \
	  exit 1; }; done
	touch $(STAMP)

# A missing tool has no recipe: make then treats it as changed and remakes the stamp.
$(TOOLS):

FORCE:

# JupyterLab serves the repository's top folder and opens the index, so the index's links to
# docs/ (the guide, the cheat sheet) open inside it, as Markdown previews; kernels still start in
# notebooks/. lab/overrides.json (no news pop-up, no update check: nothing covers the corner of a
# projected screen, nothing is fetched) is copied into .venv's JupyterLab settings, where every
# lab of this .venv reads it; a user's own settings still win.
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings/overrides.d/pe-course.json
LAB_COMMAND := $(BIN)/jupyter lab --ServerApp.ip=127.0.0.1 --ServerApp.root_dir="$(CURDIR)" \
               --LabApp.news_url=None $(ROOT_FLAG) $(LAB_ARGS) notebooks/00_index.ipynb

$(LAB_SETTINGS): lab/overrides.json $(STAMP)
	mkdir -p $(dir $@)
	cp lab/overrides.json $@

lab: $(STAMP) $(LAB_SETTINGS)
	$(LAB_COMMAND)

test: lint unit nbval

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The unit step includes the browser checks of the website (tests/e2e/test_site.py), so it
# builds the site first (nothing to do when the site is newer than its sources).
unit: $(STAMP) $(SITE_INDEX)
	$(BIN)/python -m pytest -q $(PARALLEL)

nbval: $(STAMP)
	$(BIN)/python -m pytest -q $(PARALLEL) $(NBVAL_ARGS) $(NOTEBOOKS)

# The same strict nbval under another CPU's kernels: OpenBLAS's SSE (Nehalem) kernels instead of
# Haswell's, and numpy with none of the SIMD extensions it found here (AVX2, AVX-512, ...) beyond
# its baseline. Rounding-level digits differ there, so a notebook that prints one fails here
# (../shared/NOTEBOOK_TESTING.md). .ci/run calls it.
NUMPY_SIMD = $(shell $(BIN)/python -c "import numpy; print(' '.join(numpy.show_config(mode='dicts')['SIMD Extensions']['found']))" 2>/dev/null)
nbval-other-cpu: $(STAMP)
	OPENBLAS_CORETYPE=Nehalem NPY_DISABLE_CPU_FEATURES="$(NUMPY_SIMD)" \
	  $(BIN)/python -m pytest -q $(PARALLEL) $(NBVAL_ARGS) $(NOTEBOOKS)

# Train every model whose number a lesson states over the seeds of pe_helpers.seeds.SEEDS and
# write pe_helpers/data/seeds/<slug>.json, which the lessons read (a few minutes here).
# `make experiments LESSONS="train_it"` runs some lessons only.
LESSONS ?=
# More flags for scripts/experiments.py, e.g. EXPERIMENTS_ARGS="--first-seed 10 --seeds 20" trains
# seeds 10-29 into build/seeds/: a run over other seeds than SEEDS never replaces the shipped
# results unless given --replace-shipped. Ctrl-C stops it: every file is whole, old or new.
EXPERIMENTS_ARGS ?=
experiments: $(STAMP)
	$(BIN)/python scripts/experiments.py $(LESSONS) $(EXPERIMENTS_ARGS)

# Train seed 0's models that lessons 13 and 14 load instead of training on Run All, and write
# pe_helpers/data/models/<slug>.npz (under the notebooks' CPU kernels; a few seconds).
# `make models LESSONS="two_layers"` ships one lesson's only.
models: $(STAMP)
	$(BIN)/python scripts/ship_models.py $(LESSONS)

# Check every claim of lessons 08-14 on fresh seeds: train seeds 30-49 into build/seeds/ (unless
# there), execute each notebook and its solutions against the shipped results and against those,
# with every assert recorded instead of raised, and print one line per assert (held or not, and
# by how much). CONFIRM_ARGS="--results DIR" reads results made before; the table also goes to
# build/confirm_table.txt. Exits 1 if an assert fails on the fresh seeds.
CONFIRM_ARGS ?=
confirm: $(STAMP)
	$(BIN)/python scripts/confirm_claims.py --out build/confirm_table.txt $(CONFIRM_ARGS)

# Re-execute every notebook in a fresh kernel, then clean it (outputs and counts kept).
regen: $(STAMP)
	$(BIN)/python scripts/navigation.py
	$(BIN)/python scripts/regen.py $(NOTEBOOKS)

nav: $(STAMP)
	$(BIN)/python scripts/navigation.py

# After a bump of __version__ (pe_helpers/__init__.py, the one place it lives): record the
# package's fingerprint under it (pe_helpers/data/version.json; refused while the code changed
# without a bump), then rewrite every notebook's set-up lines to require that version.
version: $(STAMP)
	$(BIN)/python scripts/record_version.py
	$(BIN)/python scripts/navigation.py

# Prove the floors in pyproject.toml: a separate venv with every runtime dependency pinned
# to its declared minimum (pins derived by scripts/oldest_requirements.py, never by hand),
# then the unit tests (not the browser suite), strict nbval over one lesson, and JupyterLab
# serving its page with the widget extension. Rebuilt whenever pyproject.toml changes.
$(OLDEST_STAMP): pyproject.toml scripts/oldest_requirements.py | $(STAMP)
	rm -rf $(OLDEST)
	$(PYTHON) -m venv $(OLDEST)
	$(BIN)/python scripts/oldest_requirements.py > $(OLDEST)/oldest.txt
	$(OLDEST_BIN)/python -m pip install --quiet --upgrade pip
	$(OLDEST_BIN)/python -m pip install --quiet -c $(OLDEST)/oldest.txt -r $(OLDEST)/oldest.txt \
	  -e '.[test]'
	MPLBACKEND=Agg $(OLDEST_BIN)/python -c "import matplotlib.pyplot"
	touch $(OLDEST_STAMP)

test-oldest: $(OLDEST_STAMP)
	$(OLDEST_BIN)/python scripts/oldest_requirements.py --check
	$(OLDEST_BIN)/python -m pytest -q --ignore=tests/e2e
	$(OLDEST_BIN)/python -m pytest -q $(NBVAL_ARGS) $(OLDEST_NOTEBOOKS)
	$(OLDEST_BIN)/python scripts/lab_smoke.py

clean:
	rm -rf $(VENV) $(OLDEST) test-artifacts $(SITE) build/site-work

# Optional conformance check: pe_helpers.rope_scaling against transformers' RoPE init functions.
# Adds the crosscheck extra (transformers, torch==2.13.0: the CPU wheel pip finds on these
# machines) to the same .venv once. tests/crosscheck runs only here, by path; --noconftest skips
# the matplotlib set-up of the other tests, which it does not need.
$(CROSSCHECK_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,hub,crosscheck]'
	touch $(CROSSCHECK_STAMP)

crosscheck: $(CROSSCHECK_STAMP)
	$(BIN)/python -m pytest -q --noconftest tests/crosscheck

# The course as a static website in build/site, from the committed notebooks (never
# re-executed) and docs/: Sphinx + myst-nb + sphinx-book-theme, MathJax served locally, no
# network. Adds the site extra to the same .venv once; rebuilds only when a source changed.
$(SITE_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,hub,site]'
	touch $(SITE_STAMP)

$(SITE_INDEX): $(SITE_STAMP) $(SITE_INPUTS)
	$(BIN)/python scripts/build_site.py

site: $(SITE_INDEX)

# Times a fresh site build and the largest page's load in Chromium, against their targets.
bench-site: $(SITE_STAMP)
	$(BIN)/python benchmarks/bench_site.py

bench: $(STAMP) $(SITE_STAMP)
	$(BIN)/python benchmarks/bench_pe.py
	$(BIN)/python benchmarks/bench_sliders.py
	$(BIN)/python benchmarks/bench_nbval.py
	$(BIN)/python benchmarks/bench_training.py
	$(BIN)/python benchmarks/bench_site.py
	$(BIN)/python benchmarks/bench_browser.py
	$(BIN)/python benchmarks/bench_memory.py
