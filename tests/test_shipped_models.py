"""The shipped models are what training gives (issue 39, point 6).

Lessons 13 and 14 load seed 0's trained weights by default (``RETRAIN = False``) so that Run All
stays a short wait in front of a room. That is only honest if loading and training give the
same model: every shipped model is trained again here, in a new process under the CPU kernels
its file records (:func:`pe_helpers.seeds.kernels_env`), and every parameter and every loss is
compared bit for bit. A CPU without those kernels trains another draw: then it is compared within
a tolerance on its losses, the same model up to rounding carried through training.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import nbformat
import numpy as np
import pytest

from pe_helpers.lessons import lessons_defining
from pe_helpers.model import ModelConfig, init_params
from pe_helpers.seeds import kernels_env
from pe_helpers.shipped_models import MODELS_FOLDER, load_models, save_models, shipped_models
from pe_helpers.tasks import Task
from pe_helpers.training import TrainedModel

WITH_MODELS = lessons_defining("SHIPPED_MODELS")
IDS = [lesson.slug for lesson, _ in WITH_MODELS]

_RETRAIN = """
import sys, tempfile
from importlib import import_module
from pe_helpers.seeds import cpu_kernels
from pe_helpers.shipped_models import save_models
slug, out = sys.argv[1], sys.argv[2]
recipes = import_module("pe_helpers.lessons." + slug).SHIPPED_MODELS
save_models(out, {name: train() for name, train in recipes.items()}, {"cpu_kernels": cpu_kernels()})
"""


def test_lessons_13_and_14_ship_their_models_and_nothing_else_is_shipped():
    assert {"two_layers", "position_from_content"} <= set(IDS)
    assert sorted(p.stem for p in MODELS_FOLDER.glob("*.npz")) == sorted(IDS)


@pytest.mark.parametrize(("lesson", "recipes"), WITH_MODELS, ids=IDS)
def test_the_shipped_models_are_what_training_gives(lesson, recipes, tmp_path):
    shipped, made = load_models(MODELS_FOLDER / f"{lesson.slug}.npz")
    assert list(shipped) == list(recipes), "one shipped model per recipe, in its order"
    assert made["seed"] == 0 and set(made["cpu_kernels"]) == {"numpy_simd", "openblas_core"}
    recorded = made["cpu_kernels"]
    out = tmp_path / "retrained.npz"
    env = {**os.environ, **(kernels_env(recorded) or {})}
    subprocess.run(
        [sys.executable, "-c", _RETRAIN, lesson.slug, str(out)], env=env, check=True, timeout=600
    )
    retrained, again = load_models(out)
    for name, model in shipped.items():
        fresh = retrained[name]
        assert fresh.config == model.config and fresh.task == model.task, name
        assert fresh.length == model.length and list(fresh.params) == list(model.params), name
        if again["cpu_kernels"] == recorded:  # the same kernels: the same bits
            np.testing.assert_array_equal(fresh.losses, model.losses, err_msg=name)
            for param, value in model.params.items():
                np.testing.assert_array_equal(fresh.params[param], value, err_msg=param)
        else:  # another CPU's kernels: the same training up to rounding
            np.testing.assert_allclose(fresh.losses[:50], model.losses[:50], rtol=1e-6)


@pytest.mark.parametrize(("lesson", "recipes"), WITH_MODELS, ids=IDS)
def test_the_notebook_loads_them_by_default_and_retrains_with_one_flag(lesson, recipes):
    nb = nbformat.read(lesson.notebook, as_version=4)
    code = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "code")
    assert "RETRAIN = False" in code
    assert f'shipped_models("{lesson.slug}"' in code
    assert "RETRAIN or SEED != 0" in code  # another seed has no shipped weights: it trains
    for name in recipes:
        assert f'"{name}"' in code, f"the notebook never names the shipped model {name!r}"


def test_models_round_trip_exactly(tmp_path):
    config = ModelConfig("alibi", vocab_size=5, d_model=4, n_heads=2, slopes=(0.5, 0.25))
    rope = ModelConfig("rope_adjacent", vocab_size=5, d_model=4, n_heads=1, inv_freq=[1 / 3, 0.1])
    models = {
        "a": TrainedModel(config, init_params(config, 1), Task("copy_back", 1), 6, [1 / 3, 0.2]),
        "b": TrainedModel(rope, init_params(rope, 2), Task("token_at", 0), 5, [np.pi]),
    }
    save_models(tmp_path / "m.npz", models, {"why": "a test"})
    back, made = load_models(tmp_path / "m.npz")
    assert made == {"why": "a test"} and list(back) == ["a", "b"]
    for name, model in models.items():
        assert back[name].config == model.config and back[name].task == model.task
        np.testing.assert_array_equal(back[name].losses, model.losses)
        for param, value in model.params.items():
            np.testing.assert_array_equal(back[name].params[param], value)
    assert list(shipped_models("m", ["b"], folder=tmp_path)) == ["b"]


@pytest.mark.parametrize(
    "arguments, error, name",
    [
        (("nope",), ValueError, "lesson"),
        (("two_layers", ["nobody"]), ValueError, "names"),
    ],
)
def test_a_missing_lesson_or_name_is_named(arguments, error, name):
    with pytest.raises(error, match=rf"\b{name}\b"):
        shipped_models(*arguments)


def test_a_file_of_another_format_or_a_damaged_model_is_refused_where_read(tmp_path):
    np.savez(tmp_path / "old.npz", header=np.array(json.dumps({"format": 0, "models": {}})))
    with pytest.raises(ValueError, match="format 0"):
        load_models(tmp_path / "old.npz")
    config = ModelConfig("none", vocab_size=5, d_model=4, n_heads=1)
    params = init_params(config) | {"embed": np.zeros((4, 4))}
    save_models(
        tmp_path / "m.npz", {"x": TrainedModel(config, params, Task("copy_back", 1), 6, [1.0])}
    )
    with pytest.raises(ValueError, match=r"params\['embed'\]"):
        load_models(tmp_path / "m.npz")
