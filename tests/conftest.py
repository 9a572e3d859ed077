"""Tests draw with the non-interactive Agg backend (figures are closed by ../conftest.py)."""

import os

os.environ.setdefault("MPLBACKEND", "Agg")

# tests/crosscheck needs the crosscheck extra (transformers, torch): only `make crosscheck`,
# which sets PE_CROSSCHECK=1, collects it, so `make test` never imports torch.
if os.environ.get("PE_CROSSCHECK") != "1":
    collect_ignore = ["crosscheck"]
