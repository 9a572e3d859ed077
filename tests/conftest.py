"""Tests draw with the non-interactive Agg backend (figures are closed by ../conftest.py)."""

import os

os.environ.setdefault("MPLBACKEND", "Agg")
# The unit tests check the shipped results (pe_helpers/data/seeds): a PE_SEED_RESULTS left set in
# the shell (results over other seeds, for the lessons to read) must not stand in for them.
os.environ.pop("PE_SEED_RESULTS", None)

# tests/crosscheck needs the crosscheck extra (transformers, torch). Plain `pytest` (`make test`)
# leaves the folder out, so it never imports torch; `make crosscheck` runs it by path.
collect_ignore = ["crosscheck"]
