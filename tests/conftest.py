"""Tests draw with the non-interactive Agg backend (figures are closed by ../conftest.py)."""

import os

os.environ.setdefault("MPLBACKEND", "Agg")
