"""Results over seeds: what a trained model's number is when it is one draw of many.

A small model's accuracy past its training length moves a lot with the seed that drew its
initial weights and its training data (Zhou et al. 2024, arXiv 2402.09371). So a lesson that
quotes a trained model reads the *spread* over seeds from a file shipped in the package, and
shows the run its notebook trained live beside it.

How the pieces fit:

* a lesson's home defines ``SEED_EXPERIMENTS``: a dict of group name -> function of one seed
  returning ``{metric: float}`` (every model of the group trained with that seed);
* ``make experiments`` (``scripts/experiments.py``) runs every group for :data:`SEEDS` and
  writes ``pe_helpers/data/seeds/<slug>.json`` (:func:`write_results`): one line per
  metric, with the git commit, versions and seconds per group that produced it;
* the notebook loads it (:func:`load_results`) and prints, asserts and plots from
  :class:`SeedResults`.

A file is written whole or not at all, and only a run over :data:`SEEDS` replaces the
shipped results (:func:`results_destination`); a file that is damaged or not a results file
raises one :class:`ResultsFileError` when it is read, naming the file, the fault and the two
ways to mend it. The environment variable ``PE_SEED_RESULTS`` (:data:`RESULTS_ENV`) may name
another folder to read: results over fresh seeds, say, to check a notebook's claims.

Examples
--------
>>> results = SeedResults("demo", (0, 1, 2), {"task.2L": np.array([0.8, 0.9, 1.0])})
>>> results.describe("task.2L")
'80–100% over 3 seeds (median 90%)'
>>> results.beside("task.2L", 0.95)
'this run 95%; 80–100% over 3 seeds (median 90%)'
>>> results.count("task.2L", lambda a: a > 0.85)
2
"""

from __future__ import annotations

import contextlib
import ctypes
import difflib
import importlib.util
import json
import os
import platform
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ._validate import as_array, check_bool, check_choice, check_int, check_real, show_value
from .i18n import translate

__all__ = [
    "RESULTS_ENV",
    "RESULTS_FOLDER",
    "SEEDS",
    "RunInterrupted",
    "SeedResults",
    "cpu_kernels",
    "kernels_env",
    "load_results",
    "results_destination",
    "run_experiments",
    "write_results",
]

#: The seeds every shipped result is measured over.
SEEDS: tuple[int, ...] = tuple(range(30))
#: Where the shipped results live: one JSON file per lesson, named by the lesson's slug.
RESULTS_FOLDER = Path(__file__).resolve().parent / "data" / "seeds"
#: Names another folder for :func:`load_results` to read; unset or empty: RESULTS_FOLDER.
RESULTS_ENV = "PE_SEED_RESULTS"
#: Version of the file layout written by :func:`write_results`.
FORMAT = 1
#: The keys of a results file, in the order they are written.
KEYS = ("format", "lesson", "seeds", "produced_by", "values")
#: The largest results file read (the shipped ones are under 20 kB).
MAX_FILE_BYTES = 10 * 2**20

Experiment = Callable[[int], Mapping[str, float]]


def _seed_text(seeds: Iterable[int]) -> str:
    """'0–9' for consecutive seeds, else '0, 3, 5' (the first eight, then how many)."""
    seeds = list(seeds)
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]}–{seeds[-1]}"
    text = ", ".join(map(str, seeds[:8]))
    return text + (f", … ({len(seeds)} seeds)" if len(seeds) > 8 else "") if seeds else "none"


def _checked_slug(lesson: object) -> str:
    """A lesson's slug: a str that is a Python identifier ('train_it')."""
    if not isinstance(lesson, str):
        raise TypeError(
            f"lesson must be a lesson's slug such as 'train_it', got {show_value(lesson)}"
        )
    if not lesson.isidentifier():
        raise ValueError(f"lesson must be a lesson's slug such as 'train_it', got {lesson!r}")
    return lesson


def _checked_seeds(seeds: object) -> tuple[int, ...]:
    """Distinct integer seeds >= 0, at least one, as a tuple."""
    if isinstance(seeds, (str, bytes, Mapping)) or not isinstance(seeds, Iterable):
        raise TypeError(
            f"seeds must be a sequence of ints such as (0, 1, 2), got {show_value(seeds)}"
        )
    checked = tuple(check_int(f"seeds[{i}]", seed, minimum=0) for i, seed in enumerate(seeds))
    if not checked or len(set(checked)) != len(checked):
        raise ValueError(f"seeds must be distinct and at least one, got {_seed_text(checked)}")
    return checked


def _checked_values(values: object, seeds: tuple[int, ...]) -> dict[str, np.ndarray]:
    """Metric name -> one finite number per seed (what a results file must hold)."""
    if not isinstance(values, Mapping) or not values:
        raise TypeError(
            f"values must be a dict of metric -> one value per seed, got {show_value(values)}"
        )
    for name, row in values.items():
        where = f"values[{name!r}]"
        if not isinstance(name, str) or not name:
            raise TypeError(f"values must be keyed by metric names (str), got {show_value(name)}")
        array = as_array(where, row)
        if array.dtype.kind not in "iuf" or array.shape != (len(seeds),):
            raise ValueError(
                f"{where} must hold one real number per seed ({len(seeds)}), got {show_value(row)}"
            )
        bad = np.flatnonzero(~np.isfinite(array))
        if bad.size:
            raise ValueError(
                f"{where} must hold a finite value for every seed; seed {seeds[bad[0]]} has "
                f"{array[bad[0]]}"
            )
    return dict(values)


def _checked_folder(folder: object) -> Path:
    """A folder given as a str or a path."""
    if not isinstance(folder, (str, os.PathLike)) or not os.fspath(folder):
        raise TypeError(
            f"folder must be a path (a str or a pathlib.Path), got {show_value(folder)}"
        )
    return Path(folder)


def _checked_scale(scale: object) -> Callable[[float], str]:
    """How ``scale`` prints a value: 'percent' ('95%') or 'plain' ('0.95')."""
    if check_choice("scale", scale, ("percent", "plain")) == "percent":
        return lambda value: f"{100 * value:.0f}%"
    return lambda value: f"{value:.2f}"


@dataclass(frozen=True, eq=False)
class SeedResults:
    """One lesson's shipped measurements: each metric's value for every seed.

    :func:`load_results` builds it from a file it has checked; :func:`run_experiments` gives
    the values :func:`write_results` builds it from.

    Parameters
    ----------
    lesson : str
        The lesson's slug (``"train_it"``).
    seeds : sequence of int
        The seeds, in the order of every metric's values; kept as a tuple.
    values : dict of str -> array_like
        Metric name (``"group.metric"``) -> one finite value per seed, shape ``(len(seeds),)``;
        kept as read-only float64 arrays.
    produced_by : dict, optional
        Commit, versions, date and seconds per group of the run that wrote them.
    """

    lesson: str
    seeds: tuple[int, ...]
    values: dict[str, np.ndarray]
    produced_by: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Keep the seeds as a tuple and every metric as a read-only float64 copy."""
        values = {}
        for name, row in self.values.items():
            values[name] = np.array(row, dtype=np.float64)
            values[name].setflags(write=False)
        object.__setattr__(self, "seeds", tuple(self.seeds))
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "produced_by", dict(self.produced_by))

    @property
    def names(self) -> list[str]:
        """Every metric name, sorted."""
        return sorted(self.values)

    def _metric(self, name: object, argument: str = "name") -> str:
        """``name`` if it is one of the metrics; else a KeyError naming the closest ones."""
        if not isinstance(name, str):
            raise TypeError(
                f"{argument} must be a metric name (a str such as {self.names[0]!r}), "
                f"got {show_value(name)}"
            )
        if name not in self.values:
            close = difflib.get_close_matches(name, self.names, n=5, cutoff=0.6)
            groups = sorted({n.split(".")[0] for n in self.names})
            known = (
                "the closest: " + ", ".join(close) if close else "its groups: " + ", ".join(groups)
            )
            raise KeyError(
                f"{argument} must be a metric of the {self.lesson!r} results, got {name!r}; {known}"
            )
        return name

    def __getitem__(self, name: str) -> np.ndarray:
        """One metric's values, one per seed (a copy)."""
        return np.array(self.values[self._metric(name)])

    def low(self, name: str) -> float:
        """The smallest value over the seeds."""
        return float(np.min(self[name]))

    def high(self, name: str) -> float:
        """The largest value over the seeds."""
        return float(np.max(self[name]))

    def median(self, name: str) -> float:
        """The median over the seeds."""
        return float(np.median(self[name]))

    def band(self, names: Iterable[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(low, median, high)`` arrays over a sequence of metrics (one point per name):
        the band a figure shades and the line it draws through it."""
        rows = np.array([self.values[self._metric(n, f"names[{i}]")] for i, n in enumerate(names)])
        return rows.min(axis=1), np.median(rows, axis=1), rows.max(axis=1)  # rows: (points, seeds)

    def count(self, name: str, holds: Callable[[np.ndarray], np.ndarray]) -> int:
        """On how many seeds ``holds(values)`` is True (``holds`` maps the array of values
        to an array of bools)."""
        return int(np.count_nonzero(holds(self[name])))

    def describe(self, name: str, *, scale: str = "percent") -> str:
        """'82–100% over 10 seeds (median 97%)': the range and the median of one metric.

        ``scale="percent"`` reads the values as shares; ``"plain"`` prints them with two
        decimals.
        """
        name, show = self._metric(name), _checked_scale(scale)
        low = show(self.low(name)).rstrip("%")  # '82–100%', not '82%–100%'
        return translate(
            f"{low}–{show(self.high(name))} over {len(self.seeds)} seeds "
            f"(median {show(self.median(name))})"
        )

    def beside(self, name: str, this_run: float, *, scale: str = "percent") -> str:
        """'this run 95%; 82–100% over 10 seeds (median 97%)'."""
        name, value, show = (
            self._metric(name),
            check_real("this_run", this_run),
            _checked_scale(scale),
        )
        return translate(f"this run {show(value)}; ") + self.describe(name, scale=scale)

    def contains(self, name: str, this_run: float, *, slack: float = 0.02) -> bool:
        """Whether a live run lies in the band of the seeds, widened by ``slack`` on each side
        (another CPU's last digits may flip a prediction or two)."""
        name, value = self._metric(name), check_real("this_run", this_run)
        return self.low(name) - slack <= value <= self.high(name) + slack

    def median_interval(
        self, name: str, *, level: float = 0.95, n_boot: int = 2000, seed: int = 0
    ) -> tuple[float, float, float]:
        """The median over the seeds, and a bootstrap interval for the median: ``(median, low,
        high)``.

        The seeds are drawn again with replacement ``n_boot`` times (100 to 100,000; a
        generator seeded with ``seed``, so the interval is the same on every computer); the
        interval holds the central ``level`` (in (0, 1)) of the medians of those draws. A claim
        that the interval lies above a threshold is one a fresh set of seeds should confirm.

        Examples
        --------
        >>> results = SeedResults("demo", range(5), {"g.x": [0.1, 0.2, 0.3, 0.4, 0.9]})
        >>> [round(v, 2) for v in results.median_interval("g.x")]
        [0.3, 0.1, 0.9]
        """
        values = self[name]
        draws = self._draws(level, n_boot, seed)
        medians = np.median(values[draws], axis=1)
        low, high = np.quantile(medians, [(1 - level) / 2, (1 + level) / 2])
        return float(np.median(values)), float(low), float(high)

    def difference_interval(
        self, first: str, second: str, *, level: float = 0.95, n_boot: int = 2000, seed: int = 0
    ) -> tuple[float, float, float]:
        """``median(first) - median(second)`` and its bootstrap interval: ``(difference, low,
        high)``, ``level``, ``n_boot`` and ``seed`` as for :meth:`median_interval`.

        Both metrics come from the same seeds, so a draw takes a seed's two values together (a
        paired bootstrap). An interval that excludes zero says which metric is higher in the
        population of seeds, not only on these.

        Examples
        --------
        >>> results = SeedResults("demo", range(4), {"g.a": [0.9, 0.8, 0.95, 0.7],
        ...                                          "g.b": [0.5, 0.6, 0.55, 0.4]})
        >>> difference, low, high = results.difference_interval("g.a", "g.b")
        >>> round(difference, 3), low > 0
        (0.325, True)
        """
        a = np.array(self.values[self._metric(first, "first")])
        b = np.array(self.values[self._metric(second, "second")])
        draws = self._draws(level, n_boot, seed)
        differences = np.median(a[draws], axis=1) - np.median(b[draws], axis=1)
        low, high = np.quantile(differences, [(1 - level) / 2, (1 + level) / 2])
        return float(np.median(a) - np.median(b)), float(low), float(high)

    def _draws(self, level: float, n_boot: int, seed: int) -> np.ndarray:
        """Seed indices of ``n_boot`` bootstrap draws, ``(n_boot, n_seeds)``, after checks."""
        level = check_real("level", level)
        if not 0 < level < 1:
            raise ValueError(f"level must lie in (0, 1), got {level}")
        n_boot = check_int("n_boot", n_boot, minimum=100, maximum=100_000)
        seed = check_int("seed", seed, minimum=0)
        n = len(self.seeds)
        return np.random.default_rng(seed).integers(0, n, size=(n_boot, n))

    def median_text(self, name: str, *, scale: str = "percent", level: float = 0.95) -> str:
        """'median 96% (95% interval 94–97%) over 30 seeds': :meth:`median_interval` in words."""
        show = _checked_scale(scale)
        median, low, high = self.median_interval(name, level=level)
        return translate(
            f"median {show(median)} ({100 * level:.0f}% interval "
            f"{show(low).rstrip('%')}–{show(high)}) over {len(self.seeds)} seeds"
        )

    def difference_text(
        self, first: str, second: str, *, scale: str = "percent", level: float = 0.95
    ) -> str:
        """'+12 points (95% interval +8 to +15)': :meth:`difference_interval` in words
        (``scale="plain"``: '+0.12 (95% interval +0.08 to +0.15)')."""
        _checked_scale(scale)
        values = self.difference_interval(first, second, level=level)
        if scale == "percent":
            shown = [f"{100 * v:+.0f}" for v in values]
            return translate(
                f"{shown[0]} points ({100 * level:.0f}% interval {shown[1]} to {shown[2]})"
            )
        shown = [f"{v:+.2f}" for v in values]
        return translate(f"{shown[0]} ({100 * level:.0f}% interval {shown[1]} to {shown[2]})")

    def count_text(self, name: str, holds: Callable[[np.ndarray], np.ndarray]) -> str:
        """'on 28 of 30 seeds': :meth:`count` in words."""
        return translate(f"on {self.count(name, holds)} of {len(self.seeds)} seeds")


# --- reading a results file -------------------------------------------------------------------


def check_results(results: object, seed: int = 0) -> SeedResults:
    """``results`` if it is a :class:`SeedResults` holding ``seed`` (a figure's door)."""
    if not isinstance(results, SeedResults):
        raise TypeError(
            f"results must be the SeedResults of load_results, got {show_value(results)}"
        )
    if check_int("seed", seed) not in results.seeds:
        raise ValueError(f"seed must be one of the shipped seeds {results.seeds}, got {seed!r}")
    return results


class ResultsFileError(ValueError):
    """A results file that cannot be read as its lesson's results (damaged, or not one).

    The message names the file, what is wrong with it, and the two ways to mend it: restore
    the shipped file (``git checkout pe_helpers/data/seeds/<slug>.json``) or regenerate it
    (``make experiments LESSONS=<slug>``). ``path`` and ``problem`` hold the parts.
    """

    path: Path | None = None
    problem: str = ""


def _damaged(path: Path, lesson: str, problem: str, named_by: str = "") -> ResultsFileError:
    """The one error of a damaged or foreign file: the file, the fault, the two mends."""
    message = (
        f"{path} cannot be read as the results of lesson {lesson!r}: {problem}.\n"
        f"To mend it, restore the shipped results with "
        f"`git checkout pe_helpers/data/seeds/{lesson}.json`, "
        f"or regenerate them with `make experiments LESSONS={lesson}`."
    )
    if named_by:
        message += (
            f"\n(This is not the shipped file: {named_by} names its folder; unset {named_by} "
            "to read the shipped results.)"
        )
    error = ResultsFileError(message)
    error.path, error.problem = path, problem
    return error


def _read(path: Path, lesson: str, named_by: str = "") -> SeedResults:
    """The results in ``path``, checked once, here; any fault raises one ResultsFileError."""

    def damaged(problem: str) -> ResultsFileError:
        return _damaged(path, lesson, problem, named_by)

    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise damaged(f"it is {size:,} bytes, too large for a results file")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise damaged("it is not UTF-8 text") from None
    if not text.strip():
        raise damaged(f"it is empty ({size} bytes): a run may have been cut while writing it")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise damaged(
            f"it is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}): it may "
            "have been cut short"
        ) from None
    except RecursionError:
        raise damaged("it is not valid JSON (nested too deep)") from None
    if not isinstance(data, dict) or sorted(data) != sorted(KEYS):
        shown = sorted(data) if isinstance(data, dict) else f"a JSON {type(data).__name__}"
        raise damaged(f"it holds {shown}, not the keys of a results file ({', '.join(KEYS)})")
    if type(data["format"]) is not int or data["format"] != FORMAT:
        raise damaged(
            f"it has format {show_value(data['format'])}; this code reads format {FORMAT}"
        )
    if data["lesson"] != lesson:
        raise damaged(
            f"it holds the results of lesson {show_value(data['lesson'])}, not {lesson!r}"
        )
    try:
        seeds = _checked_seeds(data["seeds"])
        values = _checked_values(data["values"], seeds)
        if not isinstance(data["produced_by"], dict):
            raise TypeError(f"produced_by must be a dict, got {show_value(data['produced_by'])}")
    except (TypeError, ValueError) as exc:
        raise damaged(str(exc)) from None
    return SeedResults(lesson, seeds, values, data["produced_by"])


def load_results(lesson: str, folder: Path | str | None = None) -> SeedResults:
    """The shipped results of one lesson, by its slug, checked.

    Parameters
    ----------
    lesson : str
        The slug of the lesson's home, e.g. ``"train_it"`` for ``08_train_it.ipynb``.
    folder : path, optional
        Where to look: by default :data:`RESULTS_FOLDER`, or the folder ``PE_SEED_RESULTS``
        names (:data:`RESULTS_ENV`) when it is set and not empty.

    Returns
    -------
    SeedResults

    Raises
    ------
    ValueError
        ``lesson`` is no lesson of the course, or ``folder`` holds no results for it; or, as
        ``ResultsFileError``, the file is damaged or not ``lesson``'s (saying how to mend it).
    FileNotFoundError
        The folder read by default holds no results for ``lesson``.

    Examples
    --------
    >>> load_results("train_it").seeds == SEEDS
    True
    """
    lesson = _checked_slug(lesson)
    named_by = RESULTS_ENV if folder is None and os.environ.get(RESULTS_ENV) else ""
    where = Path(os.environ.get(RESULTS_ENV) or RESULTS_FOLDER)
    where = where if folder is None else _checked_folder(folder)
    path = where / f"{lesson}.json"
    if not path.is_file():
        there = sorted(p.stem for p in where.glob("*.json")) if where.is_dir() else []
        close = difflib.get_close_matches(lesson, there, n=3)
        hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
        if importlib.util.find_spec(f"{__package__}.lessons.{lesson}") is None:
            raise ValueError(f"lesson {lesson!r} is no lesson of the course{hint}")
        named = f" (the folder {named_by} names)" if named_by else ""
        message = (
            f"no results for lesson {lesson!r} at {path}{named}{hint}: run "
            f"`make experiments LESSONS={lesson}` to produce them"
        )
        if folder is not None:  # the folder passed lacks the file: a bad argument
            raise ValueError(f"folder {str(where)!r} holds {message}")
        raise FileNotFoundError(message)
    try:
        return _read(path, lesson, named_by)
    except ResultsFileError as error:  # the learner's traceback ends here, at their call
        raise error.with_traceback(None) from None


# --- running and writing ----------------------------------------------------------------------


class RunInterrupted(KeyboardInterrupt):
    """A run of experiments stopped by Ctrl-C (or SIGTERM) before its end.

    ``finished`` maps each group begun to the seeds it finished; ``running`` says what was
    being trained. :func:`run_experiments` raises it and writes nothing.
    """

    def __init__(self, finished: Mapping[str, list[int]], running: str) -> None:
        super().__init__(finished, running)
        self.finished = {group: list(seeds) for group, seeds in finished.items()}
        self.running = running

    def __str__(self) -> str:
        done = [
            f"group {group!r} seeds {_seed_text(seeds)}"
            for group, seeds in self.finished.items()
            if seeds
        ]
        return f"interrupted while training {self.running}; finished " + (
            ", ".join(done) if done else "no seed of any group"
        )


def run_experiments(
    experiments: Mapping[str, Experiment],
    seeds: Iterable[int] = SEEDS,
    *,
    progress: Callable[[int, int, str], None] | None = None,
) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Run every group of experiments for every seed.

    ``experiments`` maps a group's name to a function of a seed returning ``{metric: float}``;
    ``progress(done, total, label)`` is called after each (group, seed). Returns the values,
    ``"group.metric"`` -> one per seed in the order of ``seeds``, and the wall-clock seconds of
    each group. On Ctrl-C it raises :class:`RunInterrupted`, saying what finished.

    Examples
    --------
    >>> values, _ = run_experiments({"g": lambda seed: {"twice": 2.0 * seed}}, seeds=(1, 2))
    >>> values
    {'g.twice': [2.0, 4.0]}
    """
    seeds = _checked_seeds(seeds)
    values: dict[str, list[float]] = {}
    seconds: dict[str, float] = {}
    finished: dict[str, list[int]] = {}
    total, done = len(experiments) * len(seeds), 0
    running = "the first group"
    try:
        for group, experiment in experiments.items():
            start = time.perf_counter()
            names: list[str] | None = None
            finished[group] = []
            for seed in seeds:
                running = f"group {group!r} seed {seed}"
                measured = {
                    name: check_real(f"{group}.{name} of seed {seed}", value)
                    for name, value in experiment(seed).items()
                }
                if names is None:
                    names = sorted(measured)
                elif sorted(measured) != names:
                    raise ValueError(
                        f"experiments[{group!r}] returned other metrics for seed {seed}: "
                        f"{sorted(measured)}, where seed {seeds[0]} gave {names}"
                    )
                for name in names:
                    values.setdefault(f"{group}.{name}", []).append(measured[name])
                finished[group].append(seed)
                done += 1
                if progress is not None:
                    progress(done, total, f"{group} seed {seed}")
            seconds[group] = round(time.perf_counter() - start, 1)
    except KeyboardInterrupt as stop:
        if isinstance(stop, RunInterrupted):
            raise
        raise RunInterrupted(finished, running) from stop
    return values, seconds


def _openblas_core() -> str:
    """The core OpenBLAS chose for this CPU ("Haswell", "SkylakeX", ...), or "unknown"."""
    libs = Path(np.__file__).resolve().parent.parent / "numpy.libs"  # numpy's wheels bundle it
    for lib in sorted(libs.glob("libscipy_openblas*.so*")):
        for symbol in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename"):
            try:
                corename = getattr(ctypes.CDLL(str(lib)), symbol)
            except (OSError, AttributeError):
                continue
            corename.restype = ctypes.c_char_p
            return corename().decode()
    return "unknown"


def cpu_kernels() -> dict[str, object]:
    """The CPU kernels this process computes with: numpy's SIMD targets and OpenBLAS's core.

    The last bits of a ufunc or a matrix product depend on them (AVX-512 or AVX2 code), and
    a model trained for hundreds of steps carries such bits into its accuracy: a re-run is
    compared bit for bit only under the same kernels (:func:`kernels_env`).

    Returns
    -------
    dict
        ``{"numpy_simd": [...], "openblas_core": str}``: the SIMD extensions numpy found
        and uses beyond its baseline (None before numpy 1.26, which cannot say), and the
        core OpenBLAS picked (or "unknown").

    Examples
    --------
    >>> sorted(cpu_kernels())
    ['numpy_simd', 'openblas_core']
    """
    try:
        found = list(np.show_config(mode="dicts").get("SIMD Extensions", {}).get("found", []))
    except TypeError:  # numpy before 1.26 cannot say (no mode): the kernels are unknown
        found = None
    return {"numpy_simd": found, "openblas_core": _openblas_core()}


def kernels_env(recorded: Mapping[str, object]) -> dict[str, str] | None:
    """Environment variables under which a new process computes with ``recorded`` kernels.

    numpy turns off the SIMD extensions it found here and the file's CPU did not have
    (``NPY_DISABLE_CPU_FEATURES``), and OpenBLAS takes the file's core
    (``OPENBLAS_CORETYPE``). None when this CPU lacks an extension the file's had, or a
    core is unknown: then these kernels cannot be had here.

    Examples
    --------
    >>> kernels_env(cpu_kernels()) in ({}, None)  # this process's own kernels: nothing to change
    True
    >>> print(kernels_env({"numpy_simd": ["NO_SUCH_EXTENSION"], "openblas_core": "Haswell"}))
    None
    """
    simd, core = recorded.get("numpy_simd"), recorded.get("openblas_core", "unknown")
    here = cpu_kernels()
    if simd is None or here["numpy_simd"] is None:
        return None
    wanted, found = set(simd), set(here["numpy_simd"])
    if not wanted <= found or "unknown" in (core, here["openblas_core"]):
        return None
    env = {}
    if found - wanted:
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(sorted(found - wanted))
    if core != here["openblas_core"]:
        env["OPENBLAS_CORETYPE"] = str(core)
    return env


def _provenance() -> dict:
    """The git commit (and whether the tree had changes) and the versions behind a run."""
    root = Path(__file__).resolve().parents[1]

    def git(*args: str) -> str:
        try:
            return subprocess.run(
                ["git", *args], cwd=root, capture_output=True, text=True, check=True
            ).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return "unknown"

    return {
        "command": "make experiments",
        "commit": git("rev-parse", "HEAD"),
        # The package's code as committed? (The results files being written do not count.)
        "uncommitted_changes": git(
            "status", "--porcelain", "--", "pe_helpers", ":!pe_helpers/data/seeds"
        )
        != "",
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
        "cpu_kernels": cpu_kernels(),
    }


def _is_shipped(folder: Path) -> bool:
    """Whether ``folder`` is the shipped results' folder."""
    return folder.resolve() == RESULTS_FOLDER.resolve()


def _write_atomically(path: Path, text: str, check: Callable[[Path], object]) -> None:
    """Write ``text`` to ``path`` whole or not at all: a temporary file in the same folder,
    flushed to disk and read back by ``check``, then renamed over ``path`` (``os.replace``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.is_file() else 0o644
    descriptor, temporary = tempfile.mkstemp(
        prefix=f".{path.name}.", suffix=".tmp", dir=path.parent
    )
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, mode)
        check(Path(temporary))
        os.replace(temporary, path)
    except BaseException:  # Ctrl-C and SIGTERM too: the temporary file goes, the old one stays
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    # and the folder's entry flushed too, so that the rename survives a power cut (POSIX)
    if hasattr(os, "O_DIRECTORY"):
        with contextlib.suppress(OSError):
            folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)


def results_destination(
    seeds: Iterable[int], folder: Path | str | None = None, *, replace_shipped: bool = False
) -> Path:
    """The folder :func:`write_results` writes results over ``seeds`` to, checked.

    ``folder`` defaults to the shipped results, :data:`RESULTS_FOLDER`, which are over
    :data:`SEEDS`: results over other seeds go elsewhere, or replace them only with
    ``replace_shipped=True`` (else a ``ValueError`` that says where else to write).

    Examples
    --------
    >>> results_destination(SEEDS) == RESULTS_FOLDER
    True
    >>> results_destination(range(2), "build/seeds").as_posix()
    'build/seeds'
    """
    seeds = _checked_seeds(seeds)
    replace_shipped = check_bool("replace_shipped", replace_shipped)
    where = RESULTS_FOLDER if folder is None else _checked_folder(folder)
    if seeds != SEEDS and _is_shipped(where) and not replace_shipped:
        raise ValueError(
            f"seeds {_seed_text(seeds)} are not the shipped seeds {_seed_text(SEEDS)}: writing "
            f"them to {where} would replace the shipped results. Write them to another folder "
            "(folder=..., or `scripts/experiments.py --out DIR`), or replace the shipped results "
            "on purpose with replace_shipped=True (`--replace-shipped`)"
        )
    return where


def write_results(
    lesson: str,
    seeds: Iterable[int],
    values: Mapping[str, list[float]],
    seconds: Mapping[str, float],
    folder: Path | str | None = None,
    *,
    replace_shipped: bool = False,
) -> Path:
    """Write one lesson's results as JSON, one line per metric, and return the path.

    ``values`` maps ``"group.metric"`` to one finite value per seed (what
    :func:`run_experiments` returns), ``seconds`` each group to its seconds; ``folder`` and
    ``replace_shipped`` are as in :func:`results_destination`. Values are stored exactly
    (``repr`` of each float), so a re-run can be compared bit for bit. The file is written
    whole or not at all (:func:`_write_atomically`), and read back (every check of
    :func:`load_results`) before it replaces the old one.
    """
    results = SeedResults(_checked_slug(lesson), tuple(seeds), values)
    path = results_destination(results.seeds, folder, replace_shipped=replace_shipped)
    path /= f"{results.lesson}.json"
    seconds = {group: float(value) for group, value in seconds.items()}
    head = {
        "format": FORMAT,
        "lesson": results.lesson,
        "seeds": list(results.seeds),
        "produced_by": {**_provenance(), "seconds_per_group": seconds},
    }
    lines = [json.dumps(head, indent=1)[:-2] + ",", ' "values": {']
    rows = [
        f"  {json.dumps(name)}: {json.dumps(results.values[name].tolist())}"
        for name in results.names
    ]
    lines.append(",\n".join(rows))
    lines.append(" }\n}\n")
    # what was written reads back, before it replaces anything
    _write_atomically(path, "\n".join(lines), lambda written: _read(written, results.lesson))
    return path


def spread_table(
    title: str,
    heads: list[str],
    rows: Mapping[str, tuple | None],
    this_run: Mapping[str, object] | None = None,
    *,
    median: bool = False,
    missing: str = "–",
) -> str:
    """A text table of results over seeds, with ``title`` over the labels and one column per
    head (lessons 08–10 print their accuracies with it; not a door).

    ``rows`` maps a label to ``(low, median, high)`` over the seeds, one value per column each
    (:meth:`SeedResults.band`), or None; ``this_run`` a label to this run's value per column
    (labels absent from ``rows`` add rows). A cell holds this run in whole percent, then the
    lowest–highest over the seeds in brackets (``"95% (82–100)"``), with the median when
    ``median`` is set (``"95% (82–100; median 97)"``); without this run the cell is the range
    alone. A NaN (or a missing row) leaves out that part; a cell with neither reads ``missing``.

    Examples
    --------
    >>> band = ([0.82, 0.57], [0.97, 0.6], [1.0, 0.67])
    >>> print(spread_table("method", ["L = 16", "2L = 32"], {"rope": band, "learned": None},
    ...                    {"rope": [0.95, 0.6], "learned": [1.0, np.nan]}, missing="refuses"))
    method                      L = 16      2L = 32
    rope                  95% (82–100)  60% (57–67)
    learned                       100%      refuses
    >>> print(spread_table("seeds", ["16"], {"RoPE": ([1.0], [1.0])}))
    seeds                      16
    RoPE                      100
    >>> print(spread_table("seeds", ["16"], {"RoPE": band}, median=True))
    seeds                                16
    RoPE                  82–100; median 97
    """
    this_run = this_run or {}
    labels = list(dict.fromkeys([*rows, *this_run]))
    table = []
    for label in labels:
        spread = rows.get(label)
        values = this_run.get(label, [np.nan] * len(heads))
        cells = []
        for k, value in enumerate(values):
            parts = [] if np.isnan(value) else [f"{round(100 * value)}%"]
            if spread is not None and not np.isnan(spread[0][k]):
                low, high = round(100 * spread[0][k]), round(100 * spread[-1][k])
                middle = translate(f"; median {round(100 * spread[1][k])}") if median else ""
                # a range alone that every seed shares is one number ("100", not "100–100")
                span = f"{low}" if low == high and not parts and not median else f"{low}–{high}"
                shown = f"{span}{middle}"
                parts.append(f"({shown})" if parts else shown)
            cells.append(" ".join(parts) or translate(missing))
        table.append((label, cells))
    width = max(20, 2 + max(map(len, [title, *labels])))
    widths = [max([len(h), 7] + [len(cells[k]) for _, cells in table]) for k, h in enumerate(heads)]
    lines = [(title, heads)] + table
    return "\n".join(
        f"{label:<{width}}" + "".join(f"  {c:>{w}}" for c, w in zip(cells, widths, strict=True))
        for label, cells in lines
    )
