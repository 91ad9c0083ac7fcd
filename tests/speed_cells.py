"""Each lab's speed tests, cut out of the reference notebook with what they need, to run them many times.

A speed test is a test cell that times something; each lab names its own in
``lab.toml`` (``[tests] speed``), and :func:`undeclared_speed_tests` finds test
cells that look like one (``hl.speedup``, ``hl.kernel_speedup``, ``hl.bench``,
``time.perf_counter``, a list of ``_ratios``) but are not named there.
:func:`speed_notebook` keeps the set-up cell, the speed tests, and the answer
and other cells that define a name those cells use (found by reading the code:
names loaded but never assigned), in notebook order. A file a kept cell loads
with ``launch.load_module("NAME")`` brings the ``%%writefile`` cell that writes ``NAME.py``. The
result runs in seconds instead of minutes, so the speed tests can be run many
times on a busy machine (``tests/notebooks/test_speed_under_load.py``,
``python -m tests.speed_cells --runs 20``).
"""

from __future__ import annotations

import argparse
import ast
import builtins
import re
import sys
import tempfile
from pathlib import Path

import nbformat

from autograder.lab_settings import Lab, all_labs

ROOT = Path(__file__).resolve().parents[1]
TIMES_SOMETHING = re.compile(r"hl\.speedup|kernel_speedup|perf_counter|hl\.bench\(|_ratios\b")


def _nbgrader(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def looks_like_a_speed_test(cell) -> bool:
    meta = _nbgrader(cell)
    return bool(meta.get("grade") and not meta.get("solution") and TIMES_SOMETHING.search(cell.source))


def undeclared_speed_tests(lab: Lab) -> list[str]:
    """Test cells of ``lab`` that time something but are in neither its ``[tests] speed`` nor ``timed_intervals``."""
    cells = [c for nb in lab.notebooks for c in nbformat.read(nb, as_version=4).cells]
    declared = set(lab.speed_tests) | set(lab.interval_tests)
    return [
        _nbgrader(c)["grade_id"]
        for c in cells
        if looks_like_a_speed_test(c) and _nbgrader(c)["grade_id"] not in declared
    ]


def _tree(source: str) -> ast.Module:
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return ast.Module(body=[], type_ignores=[])


def defined_names(source: str) -> set[str]:
    """Names a cell binds at its top level (assignments, definitions, imports, loop targets)."""
    names = set()
    for node in ast.walk(_tree(source)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def used_names(source: str) -> set[str]:
    """Names a cell reads, and ``module:NAME`` for each file it loads with ``launch.load_module("NAME")``."""
    tree = _tree(source)
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    for call in ast.walk(tree):
        if (
            isinstance(call, ast.Call)
            and getattr(call.func, "attr", getattr(call.func, "id", "")) == "load_module"
            and call.args
            and isinstance(call.args[0], ast.Constant)
            and isinstance(call.args[0].value, str)
        ):
            names.add(f"module:{call.args[0].value}")
    return names


def written_modules(source: str) -> set[str]:
    """``module:NAME`` for a ``%%writefile .../NAME.py`` cell (the file ``launch.load_module`` reads)."""
    first = source.lstrip().split("\n", 1)[0]
    if not first.startswith("%%writefile") or not first.rstrip().endswith(".py"):
        return set()
    return {"module:" + first.rstrip().rsplit("/", 1)[-1].split()[-1][: -len(".py")]}


def speed_notebook(
    source: Path, speed_tests: tuple[str, ...], copies: int = 1
) -> tuple[nbformat.NotebookNode, list[str]] | None:
    """The cut-down notebook of one lab and the grade ids of its speed tests; None when it has none.

    Each speed test appears ``copies`` times in a row: one kernel measures it that many times.
    """
    nb = nbformat.read(source, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    speed = [c for c in code if _nbgrader(c).get("grade_id") in speed_tests]
    if not speed:
        return None
    keep = {0} | {i for i, c in enumerate(code) if c in speed}
    known = set(dir(builtins))
    while True:
        defined = known.union(*(defined_names(code[i].source) | written_modules(code[i].source) for i in keep))
        missing = set().union(*(used_names(code[i].source) for i in keep)) - defined
        wanted = {
            j
            for j, c in enumerate(code)
            if j not in keep
            and (_nbgrader(c).get("solution") or not _nbgrader(c).get("grade"))
            and (defined_names(c.source) | written_modules(c.source)) & missing
        }
        if not wanted:
            break
        keep |= wanted
    cells = []
    for i in sorted(keep):
        cells.append(code[i])
        if code[i] in speed:  # the repeats get ids of their own: a notebook's cell ids are unique
            cells += [nbformat.v4.new_code_cell(code[i].source, metadata=code[i].metadata) for _ in range(copies - 1)]
    # What is still missing is a name imported only at the top of a test cell (the lint keeps imports at the top
    # of the cell that uses them first): imported again, without the rest of that test, after the set-up cell.
    imports = [line for c in code for line in _imports(c.source) if defined_names(line) & missing]
    if imports:
        cells.insert(1, nbformat.v4.new_code_cell("\n".join(dict.fromkeys(imports))))
    return nbformat.v4.new_notebook(cells=cells, metadata=nb.metadata), [_nbgrader(c)["grade_id"] for c in speed]


def _imports(source: str) -> list[str]:
    """The top-level import statements of a cell, as source lines."""
    return [ast.unparse(node) for node in _tree(source).body if isinstance(node, (ast.Import, ast.ImportFrom))]


def write_speed_notebooks(folder: Path, copies: int = 1) -> dict[str, list[str]]:
    """One cut-down notebook per lab with speed tests (each ``copies`` times), written into ``folder``;
    lab -> speed test ids."""
    found = {}
    for lab in all_labs():
        for source in lab.notebooks:
            cut = speed_notebook(source, lab.speed_tests, copies)
            if cut is not None:
                nbformat.write(cut[0], folder / source.name)
                found[source.stem] = cut[1]
    return found


def failed_cells(run: dict, nb: nbformat.NotebookNode) -> list[str]:
    """Grade ids (or ``cell N``) of the cells in error in one run (``tests.stress_kernels.run_in_child``'s result)."""
    return [_nbgrader(nb.cells[i]).get("grade_id", f"cell {i}") for i in run["errors"]]


def main(argv: list[str] | None = None) -> int:
    from tests.stress_kernels import run_under_load

    parser = argparse.ArgumentParser(
        prog="python -m tests.speed_cells", description="Run every lab's speed tests many times on a busy machine."
    )
    parser.add_argument("--runs", type=int, default=20, help="kernels per lab")
    parser.add_argument("--copies", type=int, default=1, help="times each speed test runs in one kernel")
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--burners", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="speed-cells-") as tmp:
        labs = write_speed_notebooks(Path(tmp), args.copies)
        jobs = [lab for _ in range(args.runs) for lab in labs]
        results = run_under_load(
            [Path(tmp) / f"{lab}.ipynb" for lab in jobs], 300, args.parallel, args.burners, progress=True
        )
        runs = list(zip(jobs, results))
        print(f"\n{'lab':<28} {'speed test':<30} {'passed':>8}")
        bad = 0
        for lab, tests in labs.items():
            nb = nbformat.read(Path(tmp) / f"{lab}.ipynb", as_version=4)
            mine = [run for name, run in runs if name == lab]
            for test in tests:
                lost = sum(failed_cells(run, nb).count(test) if "crash" not in run else args.copies for run in mine)
                total = len(mine) * args.copies
                bad += lost > 0
                print(f"{lab:<28} {test:<30} {total - lost:>3} / {total}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
