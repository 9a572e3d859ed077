"""Seed 0's trained models, shipped with the package, so a lesson's Run All need not retrain them.

Lessons 13 and 14 load seed 0's models from ``pe_helpers/data/models/<slug>.npz`` by default
and train them live with one flag (``RETRAIN = True``, or another ``SEED``). A lesson's home
defines ``SHIPPED_MODELS`` (model name -> function of no arguments training it with seed 0, the
very call its notebook makes); ``make models`` (``scripts/ship_models.py``) trains them under
the notebooks' CPU kernels and writes the file (:func:`save_models`). The weights are exactly
what training gives: ``tests/test_shipped_models.py`` retrains them and compares bit for bit.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path

import numpy as np

from ._validate import show_value
from .model import ModelConfig, check_params
from .tasks import make_task
from .training import TrainedModel

__all__ = ["MODELS_FOLDER", "save_models", "shipped_models"]

#: Where the shipped models live: one ``.npz`` file per lesson, named by the lesson's slug.
MODELS_FOLDER = Path(__file__).resolve().parent / "data" / "models"
#: The file format this module writes and reads.
FORMAT = 1


def save_models(
    path: Path | str, models: Mapping[str, TrainedModel], provenance: Mapping | None = None
) -> None:
    """Write trained models to one ``.npz`` file: every parameter and loss, exactly.

    ``models`` maps names to trained models; ``provenance`` (commit, CPU kernels, ...) is
    stored as JSON beside them.
    """
    arrays, meta = {}, {}
    for index, (name, model) in enumerate(models.items()):
        meta[name] = {
            "key": f"m{index}",
            "config": asdict(model.config),
            "task": list(model.task),
            "length": model.length,
            "params": list(model.params),
        }
        arrays[f"m{index}.losses"] = model.losses
        for param, value in model.params.items():
            arrays[f"m{index}.{param}"] = value
    header = {"format": FORMAT, "models": meta, "produced_by": dict(provenance or {})}
    arrays["header"] = np.array(json.dumps(header))
    with open(path, "wb") as file:
        np.savez_compressed(file, **arrays)


def load_models(path: Path | str) -> tuple[dict[str, TrainedModel], dict]:
    """The models of a file written by :func:`save_models` (by name, in the order saved,
    ``seconds`` 0), checked here as they are read, and what produced them."""
    with np.load(path, allow_pickle=False) as data:
        header = json.loads(str(data["header"]))
        if header.get("format") != FORMAT:
            raise ValueError(f"{path} has format {header.get('format')!r}, expected {FORMAT}")
        models = {}
        for name, meta in header["models"].items():
            key = meta["key"]
            config = {
                field: tuple(value) if isinstance(value, list) else value
                for field, value in meta["config"].items()
            }
            config = ModelConfig(**config)
            params = {param: data[f"{key}.{param}"] for param in meta["params"]}
            losses = np.asarray(data[f"{key}.losses"], dtype=np.float64)
            models[name] = TrainedModel(
                config,
                check_params(params, config),
                make_task(*meta["task"]),
                int(meta["length"]),
                losses,
            )
    return models, header["produced_by"]


def shipped_models(
    lesson: str, names: Sequence[str] | None = None, folder: Path | str | None = None
) -> dict[str, TrainedModel]:
    """Seed 0's shipped models of ``lesson``: what its ``SHIPPED_MODELS`` train, loaded.

    Parameters
    ----------
    lesson : str
        The lesson's slug (``"two_layers"``).
    names : list or tuple of str, optional
        The models wanted, in this order; default every model of the file.
    folder : path-like, optional
        Where the file is; default :data:`MODELS_FOLDER`.

    Returns
    -------
    dict of str to TrainedModel

    Raises
    ------
    TypeError
        ``lesson`` not text, ``names`` not a list of text, or ``folder`` not a path.
    ValueError
        No file for ``lesson`` in ``folder``, or a name it does not hold.

    Examples
    --------
    >>> models = shipped_models("two_layers", ["RoPE, one layer"])
    >>> model = models["RoPE, one layer"]
    >>> model.config.n_layers, model.length, len(model.losses)
    (1, 24, 400)
    """
    if not isinstance(lesson, str):
        raise TypeError(f"lesson must be a lesson's slug (text), got {show_value(lesson)}")
    if names is not None and (
        not isinstance(names, (list, tuple)) or not all(isinstance(name, str) for name in names)
    ):
        raise TypeError(f"names must be a list of model names (text), got {show_value(names)}")
    if folder is not None and not isinstance(folder, (str, os.PathLike)):
        raise TypeError(
            f"folder must be a path (a str or a pathlib.Path), got {show_value(folder)}"
        )
    path = Path(MODELS_FOLDER if folder is None else folder) / f"{lesson}.npz"
    if not path.is_file():
        raise ValueError(
            f"no shipped models for lesson {lesson!r}: folder {str(path.parent)!r} has no "
            f"{path.name}"
        )
    models, _ = load_models(path)
    if names is None:
        return models
    missing = [name for name in names if name not in models]
    if missing:
        raise ValueError(f"names {missing} are not shipped for {lesson!r}: {sorted(models)}")
    return {name: models[name] for name in names}
