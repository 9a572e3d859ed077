"""Lesson 08 · Position in a model you train.

The notebook ``notebooks/08_train_it.ipynb`` trains the one-layer attention model of
:mod:`pe_helpers.model` (trainer in :mod:`pe_helpers.training`, tasks in
:mod:`pe_helpers.tasks`) with each position method, tests it past its training length
and looks inside. What only this lesson needs lives here:

* measurements on trained models: :func:`accuracy_table` (accuracy per method and test
  length, NaN where a learned table refuses the length), :func:`accuracy_by_range` (over
  ranges of positions), :func:`target_attention` (how much attention a query gives the key
  that holds its answer), :func:`far_attention` (how much it gives keys at distances
  training never showed) and :func:`most_frequent_share` (how often a model answers a most
  frequent earlier token, :func:`pe_helpers.tasks.most_frequent_earlier`);
  :func:`format_accuracy_table` prints a table in whole percentages, with the range over
  seeds beside each value when given;
* ``SEED_EXPERIMENTS``: every model the notebook trains, as a function of the seed, for
  :mod:`pe_helpers.seeds` (the notebook reads the spread over seeds from
  ``pe_helpers/data/seeds/train_it.json``);
* the figures :func:`plot_extrapolation` (accuracy against test length, per method, with
  the band over seeds when given) and
  :class:`QueryAttention` (one query's attention row and the accuracy per position, under
  sliders for the test length and the query position, with the method picked by name);
* the exercise checkers :func:`check_softmax_backward`, :func:`check_prefix_prediction` and
  :func:`check_nope_prediction`.
"""

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
