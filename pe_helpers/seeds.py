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

Pure Python and numpy: nothing here draws.

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

import ctypes
import json
import platform
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ._validate import check_int, check_real

__all__ = [
    "RESULTS_FOLDER",
    "SEEDS",
    "SeedResults",
    "cpu_kernels",
    "kernels_env",
    "load_results",
    "run_experiments",
    "write_results",
]

#: The seeds every shipped result is measured over.
SEEDS: tuple[int, ...] = tuple(range(10))
#: Where the shipped results live: one JSON file per lesson, named by the lesson's slug.
RESULTS_FOLDER = Path(__file__).resolve().parent / "data" / "seeds"
#: Version of the file layout written by :func:`write_results`.
FORMAT = 1

Experiment = Callable[[int], Mapping[str, float]]


def _percent(value: float) -> str:
    """A share as a whole percentage, '95%'."""
    return f"{100 * value:.0f}%"


@dataclass(frozen=True)
class SeedResults:
    """One lesson's shipped measurements: each metric's value for every seed.

    Parameters
    ----------
    lesson : str
        The lesson's slug (``"train_it"``).
    seeds : tuple of int
        The seeds, in the order of every metric's values.
    values : dict of str -> numpy.ndarray
        Metric name (``"group.metric"``) -> one value per seed, shape ``(len(seeds),)``.
    produced_by : dict, optional
        Commit, versions, date and seconds per group of the run that wrote them.
    """

    lesson: str
    seeds: tuple[int, ...]
    values: dict[str, np.ndarray]
    produced_by: dict = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        for name, row in self.values.items():
            if np.shape(row) != (len(self.seeds),):
                raise ValueError(
                    f"metric {name!r} has {np.size(row)} values for {len(self.seeds)} seeds"
                )

    @property
    def names(self) -> list[str]:
        """Every metric name, sorted."""
        return sorted(self.values)

    def __getitem__(self, name: str) -> np.ndarray:
        """One metric's values, one per seed (a copy)."""
        if not isinstance(name, str):
            raise TypeError(f"a metric name is a str, got {type(name).__name__} {name!r}")
        if name not in self.values:
            group = name.split(".")[0]
            near = [n for n in self.names if n.split(".")[0] == group][:8]
            known = (
                "metrics of that group: " + ", ".join(near)
                if near
                else "groups: " + ", ".join(sorted({n.split(".")[0] for n in self.names}))
            )
            raise KeyError(f"no metric {name!r} in the {self.lesson!r} results; {known}")
        return np.array(self.values[name], dtype=float)

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
        rows = np.array([self[name] for name in names])  # (points, seeds)
        return rows.min(axis=1), np.median(rows, axis=1), rows.max(axis=1)

    def count(self, name: str, holds: Callable[[np.ndarray], np.ndarray]) -> int:
        """On how many seeds ``holds(values)`` is True (``holds`` maps the array of values
        to an array of bools)."""
        verdict = np.asarray(holds(self[name]))
        if verdict.shape != (len(self.seeds),) or verdict.dtype != bool:
            raise ValueError(
                "holds must map the values to one bool per seed, got "
                f"{verdict.dtype} of shape {verdict.shape}"
            )
        return int(verdict.sum())

    def describe(self, name: str, *, scale: str = "percent") -> str:
        """'82–100% over 10 seeds (median 97%)': the range and the median of one metric.

        ``scale="percent"`` reads the values as shares; ``"plain"`` prints them with two
        decimals.
        """
        show = _percent if scale == "percent" else (lambda v: f"{v:.2f}")
        if scale not in ("percent", "plain"):
            raise ValueError(f"scale must be 'percent' or 'plain', got {scale!r}")
        low = show(self.low(name)).rstrip("%")  # '82–100%', not '82%–100%'
        return (
            f"{low}–{show(self.high(name))} over {len(self.seeds)} seeds "
            f"(median {show(self.median(name))})"
        )

    def beside(self, name: str, this_run: float, *, scale: str = "percent") -> str:
        """'this run 95%; 82–100% over 10 seeds (median 97%)'."""
        show = _percent if scale == "percent" else (lambda v: f"{v:.2f}")
        return f"this run {show(check_real('this_run', this_run))}; " + self.describe(
            name, scale=scale
        )

    def contains(self, name: str, this_run: float, *, slack: float = 0.02) -> bool:
        """Whether a live run lies in the band of the seeds, widened by ``slack`` on each side
        (another CPU's last digits may flip a prediction or two)."""
        value = check_real("this_run", this_run)
        slack = check_real("slack", slack)
        if slack < 0:
            raise ValueError(f"slack must be >= 0, got {slack}")
        return self.low(name) - slack <= value <= self.high(name) + slack


def _results_path(lesson: str, folder: Path | str | None) -> Path:
    if not isinstance(lesson, str) or not lesson.isidentifier():
        raise ValueError(f"lesson must be a lesson's slug such as 'train_it', got {lesson!r}")
    return Path(RESULTS_FOLDER if folder is None else folder) / f"{lesson}.json"


def load_results(lesson: str, folder: Path | str | None = None) -> SeedResults:
    """The shipped results of one lesson, by its slug.

    Parameters
    ----------
    lesson : str
        The slug of the lesson's home, e.g. ``"train_it"`` for ``08_train_it.ipynb``.
    folder : path, optional
        Where to look; default :data:`RESULTS_FOLDER`.

    Returns
    -------
    SeedResults

    Examples
    --------
    >>> load_results("no_such_lesson")
    Traceback (most recent call last):
    ...
    FileNotFoundError: no results for lesson 'no_such_lesson' ...
    """
    path = _results_path(lesson, folder)
    if not path.is_file():
        raise FileNotFoundError(
            f"no results for lesson {lesson!r} at {path}: run `make experiments` to produce them"
        )
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("format") != FORMAT:
        raise ValueError(f"{path} has format {data.get('format')!r}; this code reads {FORMAT}")
    values = {name: np.array(row, dtype=float) for name, row in data["values"].items()}
    return SeedResults(data["lesson"], tuple(data["seeds"]), values, data["produced_by"])


def run_experiments(
    experiments: Mapping[str, Experiment],
    seeds: Iterable[int] = SEEDS,
    *,
    progress: Callable[[int, int, str], None] | None = None,
) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Run every group of experiments for every seed.

    Parameters
    ----------
    experiments : dict of str -> callable
        Group name -> function of a seed returning ``{metric: float}``.
    seeds : iterable of int, default :data:`SEEDS`
    progress : callable, optional
        Called as ``progress(done, total, label)`` after each (group, seed).

    Returns
    -------
    values : dict of str -> list of float
        ``"group.metric"`` -> one value per seed, in the order of ``seeds``.
    seconds : dict of str -> float
        Wall-clock time of each group over all seeds.

    Examples
    --------
    >>> values, _ = run_experiments({"g": lambda seed: {"twice": 2.0 * seed}}, seeds=(1, 2))
    >>> values
    {'g.twice': [2.0, 4.0]}
    """
    seeds = [check_int("seed", s, minimum=0) for s in seeds]
    if not seeds:
        raise ValueError("seeds must hold at least one seed")
    values: dict[str, list[float]] = {}
    seconds: dict[str, float] = {}
    total, done = len(experiments) * len(seeds), 0
    for group, experiment in experiments.items():
        start = time.perf_counter()
        names: list[str] | None = None
        for seed in seeds:
            measured = dict(experiment(seed))
            if names is None:
                names = sorted(measured)
            elif sorted(measured) != names:
                raise ValueError(f"group {group!r} returned other metrics for seed {seed}")
            for name in names:
                values.setdefault(f"{group}.{name}", []).append(float(measured[name]))
            done += 1
            if progress is not None:
                progress(done, total, f"{group} seed {seed}")
        seconds[group] = round(time.perf_counter() - start, 1)
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

    The last bits of a ufunc or a matrix product depend on them (numpy runs AVX-512 code
    where the CPU has it, AVX2 code elsewhere), and a model trained for hundreds of steps
    carries such bits into its accuracy. A results file records them, so a re-run is
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
    here = cpu_kernels()
    if recorded.get("numpy_simd") is None or here["numpy_simd"] is None:
        return None
    wanted, found = set(recorded["numpy_simd"]), set(here["numpy_simd"])
    core = recorded.get("openblas_core", "unknown")
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


def write_results(
    lesson: str,
    seeds: Iterable[int],
    values: Mapping[str, list[float]],
    seconds: Mapping[str, float],
    folder: Path | str | None = None,
) -> Path:
    """Write one lesson's results as JSON, one line per metric, and return the path.

    Values are stored exactly (``repr`` of each float), so a re-run can be compared bit for bit.
    """
    path = _results_path(lesson, folder)
    seeds = list(seeds)
    head = {
        "format": FORMAT,
        "lesson": lesson,
        "seeds": seeds,
        "produced_by": {**_provenance(), "seconds_per_group": dict(seconds)},
    }
    lines = [json.dumps(head, indent=1)[:-2] + ",", ' "values": {']
    rows = [
        f"  {json.dumps(name)}: {json.dumps(list(map(float, row)))}"
        for name, row in sorted(values.items())
    ]
    lines.append(",\n".join(rows))
    lines.append(" }\n}\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8")
    load_results(lesson, path.parent)  # what was written reads back
    return path
