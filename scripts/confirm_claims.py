"""Check every claim of the trained lessons on seeds their claims were not written from.

Usage: python scripts/confirm_claims.py [NOTEBOOK ...] [--results DIR] [--first-seed K]
                                        [--seeds N] [--keep-seed] [--out FILE]

A lesson's claims about its trained models are asserts over the results of
``pe_helpers.seeds`` (``spread``). This script

1. trains a set of fresh seeds (by default 30-49, which the shipped results do not hold)
   into ``build/seeds/`` with ``scripts/experiments.py``, unless that folder already holds
   them for every lesson (``--results DIR`` names a folder made before, and trains nothing);
2. executes every notebook with trained models (lessons 08-14) and its solutions twice,
   once reading the shipped results and once with ``PE_SEED_RESULTS`` naming the fresh
   ones. No assert stops a run: each ``assert`` is rewritten to record whether it held
   and by how much (its *margin*: for ``a > b`` or ``a < b`` the smallest ``a - b`` or
   ``b - a`` over the arrays compared, negative when it fails). In the fresh run the
   notebook's ``SEED = 0`` becomes the first fresh seed, so its live run is one of the
   fresh results and each ``spread.contains`` guard is checked too (``--keep-seed``
   keeps the notebook's own seed);
3. prints a table with one line per assert: notebook, cell, line, the assert's text, and
   for each run whether it held and its margin. It exits with status 1 when an assert
   fails on the fresh seeds (or a cell stops with an error), else 0.

Both runs use the CPU kernels the shipped results record when this CPU has them (as
``make regen`` does), so the live runs repeat the shipped numbers bit for bit.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
#: The notebooks whose claims rest on trained models over seeds.
LESSON_NUMBERS = tuple(range(8, 15))
#: The fresh seeds trained by default: none of them is a shipped seed.
FIRST_FRESH_SEED, FRESH_SEEDS = 30, 20
#: Printed by the injected last cell, before the JSON of the records.
MARKER = "@@CONFIRM-CLAIMS@@"
#: The name the injected recorder has in the notebook's namespace.
RECORDER = "_confirm_claims_recorder"
#: The line that fixes a notebook's live seed.
SEED_LINE = re.compile(r"^SEED = \d+", re.MULTILINE)

RECORDER_CELL = f'''
import numpy as _confirm_np


class _ConfirmClaims:
    """Records asserts instead of raising: held, skipped (a guard was off), margin."""

    def __init__(self):
        self.records = {{}}

    def check(self, key, guard, test, margin):
        empty = {{"runs": 0, "held": True, "skipped": 0, "margin": None}}
        record = self.records.setdefault(key, empty)
        record["runs"] += 1
        if guard is not None and not guard():
            record["skipped"] += 1
            return
        try:
            held = bool(test())
        except Exception as exc:  # an assert that raises fails, and says why
            record["held"], record["error"] = False, f"{{type(exc).__name__}}: {{exc}}"
            return
        record["held"] = record["held"] and held
        if margin is not None:
            try:
                value = float(_confirm_np.min(_confirm_np.asarray(margin(), dtype=float)))
            except Exception:
                return
            old = record["margin"]
            record["margin"] = value if old is None else min(old, value)


{RECORDER} = _ConfirmClaims()
'''

REPORT_CELL = f"""
import json as _confirm_json
print({MARKER!r} + _confirm_json.dumps({RECORDER}.records))
"""


@dataclass
class Claim:
    """One assert of a notebook: where it is and its text."""

    notebook: str
    cell: int
    line: int
    text: str

    @property
    def key(self) -> str:
        """The key its records are filed under."""
        return f"{self.cell}:{self.line}"


@dataclass
class Outcome:
    """How one assert fared in one run."""

    held: bool | None = None  # None: never reached
    skipped: bool = False  # every evaluation had its guard off
    margin: float | None = None
    error: str = ""

    def status(self) -> str:
        """'held', 'FAILED', 'skipped' or 'not run'."""
        if self.held is None:
            return "not run"
        if not self.held:
            return "FAILED"
        return "skipped" if self.skipped else "held"


@dataclass
class NotebookRun:
    """The outcomes of one execution of a notebook, and the errors of its cells."""

    outcomes: dict[str, Outcome] = field(default_factory=dict)
    cell_errors: dict[int, str] = field(default_factory=dict)


def _margin(test: ast.expr) -> ast.expr | None:
    """An expression for how much a comparison holds by (>= 0 when it holds), or None."""
    if isinstance(test, ast.Call) and not test.args and isinstance(test.func, ast.Attribute):
        if test.func.attr == "all":  # (a > b).all()
            return _margin(test.func.value)
    if (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Attribute)
        and test.func.attr == "all"
        and len(test.args) == 1
    ):  # np.all(a > b)
        return _margin(test.args[0])
    if not isinstance(test, ast.Compare):
        return None
    parts, left = [], test.left
    for op, right in zip(test.ops, test.comparators, strict=True):
        if isinstance(op, (ast.Lt, ast.LtE)):
            parts.append(ast.BinOp(right, ast.Sub(), left))
        elif isinstance(op, (ast.Gt, ast.GtE)):
            parts.append(ast.BinOp(left, ast.Sub(), right))
        else:
            return None
        left = right
    if len(parts) == 1:
        return parts[0]
    return ast.Call(
        ast.Name("min", ast.Load()),
        [ast.Call(_np_attr("min"), [p], []) for p in parts],
        [],
    )


def _np_attr(name: str) -> ast.expr:
    """``_confirm_np.<name>`` as an expression."""
    return ast.Attribute(ast.Name("_confirm_np", ast.Load()), name, ast.Load())


def _split_guard(test: ast.expr) -> tuple[ast.expr | None, ast.expr]:
    """``not GUARD or CLAIM`` -> (GUARD, CLAIM); anything else -> (None, test)."""
    if (
        isinstance(test, ast.BoolOp)
        and isinstance(test.op, ast.Or)
        and len(test.values) == 2
        and isinstance(test.values[0], ast.UnaryOp)
        and isinstance(test.values[0].op, ast.Not)
    ):
        return test.values[0].operand, test.values[1]
    return None, test


def _lambda(body: ast.expr | None) -> ast.expr:
    """``lambda: body`` (or the constant None)."""
    if body is None:
        return ast.Constant(None)
    no_args = ast.arguments(
        posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]
    )
    return ast.Lambda(no_args, body)


class _AssertRecorder(ast.NodeTransformer):
    """Turns each assert of a cell into a call of the recorder, and lists the claims."""

    def __init__(self, notebook: str, cell: int, source: str) -> None:
        self.notebook, self.cell, self.source = notebook, cell, source
        self.claims: list[Claim] = []

    def visit_Assert(self, node: ast.Assert) -> ast.stmt:
        text = ast.get_source_segment(self.source, node) or ast.unparse(node)
        claim = Claim(self.notebook, self.cell, node.lineno, " ".join(text.split()))
        self.claims.append(claim)
        guard, test = _split_guard(node.test)
        call = ast.Call(
            ast.Attribute(ast.Name(RECORDER, ast.Load()), "check", ast.Load()),
            [ast.Constant(claim.key), _lambda(guard), _lambda(node.test), _lambda(_margin(test))],
            [],
        )
        return ast.copy_location(ast.Expr(call), node)


def instrument(nb: nbformat.NotebookNode, name: str) -> tuple[nbformat.NotebookNode, list[Claim]]:
    """A copy of ``nb`` whose asserts record instead of raise, and the claims it holds.

    A recorder cell goes first and a report cell last; a cell Python cannot parse (an
    IPython magic, say) is left as it is, its asserts unlisted.
    """
    out = nbformat.from_dict(json.loads(json.dumps(nb)))
    claims: list[Claim] = []
    for index, cell in enumerate(out.cells):
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        recorder = _AssertRecorder(name, index, cell.source)
        tree = ast.fix_missing_locations(recorder.visit(tree))
        if recorder.claims:
            cell.source = ast.unparse(tree)
            claims += recorder.claims
    out.cells.insert(0, nbformat.v4.new_code_cell(RECORDER_CELL))
    out.cells.append(nbformat.v4.new_code_cell(REPORT_CELL))
    return out, claims


def with_seed(nb: nbformat.NotebookNode, seed: int) -> nbformat.NotebookNode:
    """``nb`` with its ``SEED = ...`` line (if any) set to ``seed``."""
    for cell in nb.cells:
        if cell.cell_type == "code" and SEED_LINE.search(cell.source):
            cell.source = SEED_LINE.sub(f"SEED = {seed}", cell.source, count=1)
    return nb


def read_run(executed: nbformat.NotebookNode) -> NotebookRun:
    """The outcomes recorded by an instrumented notebook that was executed.

    The first and last cells are the injected recorder and report; a cell's error is
    filed under its index in the notebook as it was before instrumenting.
    """
    run = NotebookRun()
    for index, cell in enumerate(executed.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                run.cell_errors[index - 1] = f"{output.get('ename')}: {output.get('evalue')}"
            text = output.get("text", "") if output.get("output_type") == "stream" else ""
            if MARKER in text:
                records = json.loads(text.split(MARKER, 1)[1].strip().splitlines()[0])
                for key, record in records.items():
                    run.outcomes[key] = Outcome(
                        held=record["held"],
                        skipped=record["skipped"] == record["runs"],
                        margin=record["margin"],
                        error=record.get("error", ""),
                    )
    return run


def _margin_text(outcome: Outcome | None) -> str:
    """The margin rounded to 3 decimals, or a dash."""
    if outcome is None or outcome.margin is None or outcome.skipped:
        return "-"
    return f"{outcome.margin:+.3f}"


def report(claims: list[Claim], runs: dict[str, dict[str, NotebookRun]], width: int = 70) -> str:
    """The table: one line per claim, with its outcome and margin in each run.

    ``runs`` maps a run's label ("shipped", "fresh") to notebook name -> NotebookRun.
    """
    labels = list(runs)
    head = f"{'notebook':38s} {'cell':>4s} {'line':>4s}  {'assert':{width}s}"
    for label in labels:
        head += f"  {label + ' ':>10s}{'margin':>8s}"
    lines = [head, "-" * len(head)]
    for claim in claims:
        text = claim.text if len(claim.text) <= width else claim.text[: width - 1] + "…"
        line = f"{claim.notebook:38s} {claim.cell:4d} {claim.line:4d}  {text:{width}s}"
        for label in labels:
            run = runs[label].get(claim.notebook)
            outcome = run.outcomes.get(claim.key) if run else None
            status = outcome.status() if outcome else "not run"
            line += f"  {status:>10s}{_margin_text(outcome):>8s}"
        lines.append(line)
    for label in labels:
        for notebook, run in runs[label].items():
            for cell, error in sorted(run.cell_errors.items()):
                lines.append(f"{label}: {notebook} cell {cell} stopped: {error}")
    return "\n".join(lines)


def failures(claims: list[Claim], run: dict[str, NotebookRun]) -> list[str]:
    """What failed in one run: claims that failed and cells that stopped."""
    bad = []
    for claim in claims:
        notebook_run = run.get(claim.notebook)
        outcome = notebook_run.outcomes.get(claim.key) if notebook_run else None
        if outcome is not None and outcome.status() == "FAILED":
            bad.append(f"{claim.notebook} cell {claim.cell} line {claim.line}: {claim.text}")
    for notebook, notebook_run in run.items():
        bad += [f"{notebook} cell {c}: {e}" for c, e in sorted(notebook_run.cell_errors.items())]
    return bad


def notebooks(names: list[str]) -> list[Path]:
    """The notebooks to check: those named, or lessons 08-14 and their solutions."""
    if names:
        return [Path(name).resolve() for name in names]
    found = []
    for number in LESSON_NUMBERS:
        found += sorted((ROOT / "notebooks").glob(f"{number:02d}_*.ipynb"))
        found += sorted((ROOT / "notebooks" / "solutions").glob(f"{number:02d}_*.ipynb"))
    return found


def _kernels() -> dict[str, str]:
    """Environment for the CPU kernels the shipped results record, where this CPU has them."""
    from pe_helpers.seeds import RESULTS_FOLDER, kernels_env

    for path in sorted(RESULTS_FOLDER.glob("*.json")):
        recorded = json.loads(path.read_text())["produced_by"].get("cpu_kernels")
        env = kernels_env(recorded) if recorded else None
        return env or {}
    return {}


def execute(path: Path, results: Path | None, seed: int | None, timeout: int) -> NotebookRun:
    """Execute an instrumented copy of the notebook and read its records (nothing written)."""
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    if seed is not None:
        nb = with_seed(nb, seed)
    instrumented, _ = instrument(nb, path.name)
    saved = os.environ.get("PE_SEED_RESULTS")
    os.environ["PE_SEED_RESULTS"] = str(results) if results else ""
    try:
        client = NotebookClient(
            instrumented,
            timeout=timeout,
            kernel_name="python3",
            allow_errors=True,
            resources={"metadata": {"path": str(path.parent)}},
        )
        client.execute()
    finally:
        if saved is None:
            os.environ.pop("PE_SEED_RESULTS", None)
        else:
            os.environ["PE_SEED_RESULTS"] = saved
    return read_run(instrumented)


def _fresh_results_present(folder: Path, seeds: tuple[int, ...], slugs: list[str]) -> bool:
    """Whether ``folder`` holds results over ``seeds`` for every lesson in ``slugs``."""
    for slug in slugs:
        path = folder / f"{slug}.json"
        if not path.exists() or tuple(json.loads(path.read_text())["seeds"]) != seeds:
            return False
    return True


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="notebooks to check (default: 08-14)")
    parser.add_argument("--results", type=Path, help="fresh results made before (trains nothing)")
    parser.add_argument("--first-seed", type=int, default=FIRST_FRESH_SEED)
    parser.add_argument("--seeds", type=int, default=FRESH_SEEDS)
    parser.add_argument("--keep-seed", action="store_true", help="keep each notebook's SEED")
    parser.add_argument("--fresh-only", action="store_true", help="skip the shipped run")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per cell at most")
    parser.add_argument("--out", type=Path, help="also write the table to this file")
    args = parser.parse_args(argv)
    os.environ.update(_kernels())
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    seeds = tuple(range(args.first_seed, args.first_seed + args.seeds))
    folder = args.results
    if folder is None:
        from pe_helpers.seeds import SEEDS

        if set(seeds) & set(SEEDS):
            parser.error(f"fresh seeds must not be shipped seeds (0-{len(SEEDS) - 1})")
        folder = ROOT / "build" / "seeds"
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from experiments import lessons_with_experiments

        slugs = list(lessons_with_experiments())
        if not _fresh_results_present(folder, seeds, slugs):
            command = [sys.executable, str(ROOT / "scripts" / "experiments.py")]
            command += ["--first-seed", str(seeds[0]), "--seeds", str(len(seeds))]
            subprocess.run([*command, "--out", str(folder)], check=True)
    folder = folder.resolve()
    from pe_helpers.seeds import load_results

    paths = notebooks(args.notebooks)
    claims: list[Claim] = []
    for path in paths:
        claims += instrument(nbformat.read(path, as_version=4), path.name)[1]
    live_seed = None
    if not args.keep_seed:
        live_seed = min(load_results("train_it", folder).seeds)
    runs: dict[str, dict[str, NotebookRun]] = {} if args.fresh_only else {"shipped": {}}
    runs["fresh"] = {}
    for path in paths:
        if not args.fresh_only:
            print(f"{path.name}: shipped results", file=sys.stderr, flush=True)
            runs["shipped"][path.name] = execute(path, None, None, args.timeout)
        print(f"{path.name}: results in {folder}", file=sys.stderr, flush=True)
        runs["fresh"][path.name] = execute(path, folder, live_seed, args.timeout)
    table = report(claims, runs)
    print(table)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(table + "\n")
    bad = failures(claims, runs["fresh"])
    for line in bad:
        print(f"FAILED on the fresh seeds: {line}", file=sys.stderr)
    print(
        f"{len(claims)} asserts in {len(paths)} notebooks; {len(bad)} failures on the fresh seeds",
        file=sys.stderr,
    )
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
