"""Nothing a student receives computes a graded answer (house rule 2).

Two checks:

- **Behaviour, for the package.** Each graded pure function a lab lists in its
  ``lab.toml`` (``[graded_functions]``, with its arguments' domain) is taken from the
  reference solution and called on fresh seeded inputs; so is every public
  function of ``hpml_lab_utils`` that takes the same number of arguments. A
  helper that returns the same results on every input is the graded answer
  handed out (``roofline.attainable`` was lab01's ``attainable_gflops``).
- **Text, for the lectures and the package.** Each function a student writes
  (its body holds ``### BEGIN SOLUTION``) is compared, statement by statement,
  with every code cell of ``course/`` (all of its code, in functions or not)
  and every function of ``hpml_lab_utils``. Every name that is not imported or
  built in becomes ``v`` and each statement is cut into token 6-grams of its
  own, so renamed variables and reordered statements do not hide a copy: a
  cell holding most of a graded body's 6-grams is a copy. The 6-grams of
  nothing but renamed names, keywords and punctuation (``for v in range(v):``)
  say nothing and are left out.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import json
import keyword
import math
import multiprocessing
import pkgutil
import random
import re
import signal
from pathlib import Path

import hpml_lab_utils

import numpy as np
import pytest

from autograder import domains
from autograder.lab_settings import all_labs

ROOT = Path(__file__).resolve().parents[2]
NEAR_COPY = 0.6  # share of a graded body's 6-grams found in one lecture cell or helper
MIN_GRAMS = 20  # shorter graded bodies (one-line formulas) are left to the behaviour check
# code that shares a lab's idiom on another operation, where the lab asks for more: (function, notebook or module)
TAUGHT_ON_ANOTHER_VARIANT = {
    ("lab04_cuda_numba.matmul_naive_kernel", "cuda_helpers.py"): (
        "grid_2d_owners shares the 2-D launch's cuda.grid(2) and bounds check, which lab 4's text gives; it "
        "records which thread owns an element and computes no product"
    ),
    ("lab11_custom_kernels.add_kernel", "week06_memory_hierarchy.ipynb"): (
        "week 6 shows Triton's block-and-mask idiom on a scaled ReLU; lab 11 asks for the add, its wrapper, "
        "out= and the grid"
    ),
}

# graded pure functions and their arguments' domains, from each lab's lab.toml ([graded_functions.NAME]); small
# values, since every package function of the same arity is called with them
GRADED = [(lab.name, name, specs) for lab in all_labs() for name, specs in lab.graded_functions.items()]
# package functions never called here: they measure, launch, start (a Ray cluster), draw, train or wait; a
# started cluster is a process, not a result (rl.start_ray given a list left a failed head's folder in /tmp)
SIDE_EFFECTS = re.compile(
    r"measure|launch|torchrun|plot|explore|bench|report|train|seed|save|load|sleep|wait|"
    r"kill|speedup|time_|timer|show|widget|selfcheck|download|cache|run|pick|fast|start"
)


def answer_cells(lab: str) -> list[str]:
    nb = json.loads((ROOT / "solutions" / lab / f"{lab}.ipynb").read_text())
    return [
        "".join(c["source"])
        for c in nb["cells"]
        if c["cell_type"] == "code" and c["metadata"].get("nbgrader", {}).get("solution")
    ]


def reference(lab: str, name: str):
    namespace = {"math": math, "np": np, "torch": importlib.import_module("torch")}  # what the setup cells import
    for source in answer_cells(lab):
        if f"def {name}(" in source:
            exec(compile(source, f"{lab}:{name}", "exec"), namespace)
            return namespace[name]
    raise LookupError(f"{lab} has no answer cell defining {name}")


def package_functions():
    for info in pkgutil.iter_modules(hpml_lab_utils.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"hpml_lab_utils.{info.name}")
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if (
                fn.__module__ == module.__name__
                and not name.startswith("_")
                and not SIDE_EFFECTS.search(f"{info.name}.{name}")
            ):
                yield f"{info.name}.{name}", fn


def required_arity(fn) -> int | None:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    return sum(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


class _TooSlow(Exception):
    pass


def _call_briefly(fn, args, seconds: int = 2):
    """fn(*args), or _TooSlow after `seconds` (a helper that sleeps or loops is not a formula)."""

    def stop(signum, frame):
        raise _TooSlow

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        return fn(*args)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def same_results(helper, graded, specs, trials: int = 6) -> bool:
    rng = random.Random(2024)
    for _ in range(trials):
        args = domains.sample_args(specs, rng)
        try:
            got = _call_briefly(helper, args)
        except Exception:  # noqa: BLE001 - a helper that fails on these inputs computes nothing graded
            return False
        want = graded(*args)
        if isinstance(want, dict):  # a dict of figures: compare its values, key by key
            if not isinstance(got, dict) or set(got) != set(want):
                return False
            got, want = [got[k] for k in sorted(want)], [want[k] for k in sorted(want)]
        try:
            got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
            if got.shape != want.shape or not np.allclose(got, want, rtol=1e-9, atol=0):
                return False
        except (TypeError, ValueError):
            return False
    return True


def twins_of(lab: str, name: str, specs: list) -> list[str]:
    """The package functions that return what the graded function returns, on every trial."""
    graded = reference(lab, name)
    arity = required_arity(graded)
    return [
        where for where, fn in package_functions() if required_arity(fn) == arity and same_results(fn, graded, specs)
    ]


@pytest.mark.parametrize("lab,name,specs", GRADED, ids=[f"{lab.split('_')[0]}-{name}" for lab, name, _ in GRADED])
def test_no_package_helper_computes_a_graded_function(lab, name, specs):
    # In a forked child: an alarm that stops a helper halfway through a lazy import (torch._dynamo, say) leaves
    # that module half-initialised, and every later test in this process that needs it would fail. torch itself
    # is imported here first: a helper's alarm cut short the child's own first import of it when this test ran
    # before any other test of its worker had imported torch.
    importlib.import_module("torch")
    with multiprocessing.get_context("fork").Pool(1) as pool:
        twins = pool.apply(twins_of, (lab, name, specs))
    assert not twins, f"hpml_lab_utils helpers compute {lab}'s graded {name}: {twins}"


SKIP = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)
PLAIN = set(keyword.kwlist) | set(dir(builtins)) | {"v"}
HEADERS = {  # a compound statement counts by its header: its body's statements count on their own
    ast.For: lambda s: f"for {ast.unparse(s.target)} in {ast.unparse(s.iter)}:",
    ast.While: lambda s: f"while {ast.unparse(s.test)}:",
    ast.If: lambda s: f"if {ast.unparse(s.test)}:",
    ast.With: lambda s: "with " + ", ".join(ast.unparse(item) for item in s.items) + ":",
}


def parse(source: str) -> ast.Module | None:
    source = "\n".join(line for line in source.split("\n") if not line.lstrip().startswith(("%", "!")))
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def code_cells(path: Path) -> list[str]:
    return ["".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]


def imported_names() -> set[str]:
    """Every name an import binds anywhere in the course, the solutions or the package (torch, np, F, ...)."""
    sources = [cell for path in ROOT.glob("course/*.ipynb") for cell in code_cells(path)]
    sources += [cell for path in ROOT.glob("solutions/*/*.ipynb") for cell in code_cells(path)]
    sources += [path.read_text() for path in ROOT.glob("hpml_lab_utils/*.py")]
    names = set()
    for tree in filter(None, map(parse, sources)):
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return names


class _Rename(ast.NodeTransformer):
    """Every name that is not imported or built in becomes v (locals, arguments, the notebook's globals)."""

    def __init__(self, kept: set[str]) -> None:
        self.kept = kept

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.copy_location(ast.Name(node.id if node.id in self.kept else "v", node.ctx), node)

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg = "v"
        return node


def statement_grams(node: ast.AST, kept: set[str], k: int = 6) -> set[tuple[str, ...]]:
    """The token k-grams of each statement under node (none across two statements), names renamed.

    A k-gram of nothing but v, keywords, builtins and punctuation is left out: it matches any loop.
    """
    renamed = _Rename(kept | PLAIN).visit(ast.parse(ast.unparse(node)))
    found = set()
    for statement in ast.walk(renamed):
        if not isinstance(statement, ast.stmt) or isinstance(statement, SKIP):
            continue
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring
        header = HEADERS.get(type(statement))
        tokens = re.findall(r"\w+|[^\w\s]", header(statement) if header else ast.unparse(statement))
        for i in range(len(tokens) - k + 1):
            gram = tuple(tokens[i : i + k])
            if any(re.fullmatch(r"[A-Za-z_]\w*", t) and t not in PLAIN for t in gram):
                found.add(gram)
    return found


def written_by_students() -> list[tuple[str, ast.FunctionDef]]:
    """(lab.function, its definition) for every function whose body a student writes."""
    found = []
    for lab in sorted(p.name for p in (ROOT / "solutions").iterdir() if p.is_dir()):
        for source in answer_cells(lab):
            tree = parse(source)
            lines = source.split("\n")
            for fn in ast.walk(tree) if tree else []:
                if isinstance(fn, ast.FunctionDef) and any(
                    "BEGIN SOLUTION" in line for line in lines[fn.lineno - 1 : fn.end_lineno]
                ):
                    found.append((f"{lab}.{fn.name}", fn))
    return found


def given_to_students() -> list[tuple[str, str, ast.AST]]:
    """(notebook or module, where in it, code) for every lecture code cell and every package function."""
    found = []
    for path in sorted((ROOT / "course").glob("*.ipynb")):
        for i, cell in enumerate(code_cells(path)):
            if tree := parse(cell):
                found.append((path.name, f"code cell {i}", tree))
    for path in sorted((ROOT / "hpml_lab_utils").glob("*.py")):
        tree = parse(path.read_text())
        found += [(path.name, fn.name, fn) for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef)]
    return found


def copies_of(graded: list[tuple[str, ast.FunctionDef]], given: list[tuple[str, str, ast.AST]]) -> list[str]:
    kept = imported_names()
    theirs = [(source, where, statement_grams(code, kept)) for source, where, code in given]
    copies = []
    for name, fn in graded:
        ours = statement_grams(fn, kept)
        if len(ours) < MIN_GRAMS:
            continue
        for source, where, other in theirs:
            shared = len(ours & other) / len(ours)
            if shared >= NEAR_COPY and (name, source) not in TAUGHT_ON_ANOTHER_VARIANT:
                copies.append(f"{name} ~ {source} {where} ({shared:.0%} of its 6-grams)")
    return copies


def test_no_graded_body_is_copied_into_lectures_or_helpers():
    copies = copies_of(written_by_students(), given_to_students())
    assert not copies, "graded bodies copied where students can read them:\n" + "\n".join(copies)


class _Disguise(ast.NodeTransformer):
    """Every argument and local of a function renamed, as someone hiding a copy would."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.copy_location(ast.Name(f"my_{node.id}" if node.id in self.names else node.id, node.ctx), node)


def planted_cell(fn: ast.FunctionDef) -> ast.Module:
    """A lecture cell that does fn's work at the top level: locals renamed, statements in reverse order."""
    names = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    names |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    disguised = _Disguise(names).visit(ast.Module(body=body[::-1], type_ignores=[]))
    surrounding = "import torch\nDEMO = torch.randn(3, 4)\nprint(DEMO.sum())\n"
    return ast.parse(surrounding + ast.unparse(disguised) + "\nprint('done')\n")


def test_a_graded_body_with_renamed_locals_and_reordered_statements_in_a_lecture_cell_is_caught():
    graded = written_by_students()
    planted = [(f"planted_{name}.ipynb", "code cell 0", planted_cell(fn)) for name, fn in graded]
    caught = copies_of(graded, planted)
    kept = imported_names()
    big_enough = [name for name, fn in graded if len(statement_grams(fn, kept)) >= MIN_GRAMS]
    missed = [name for name in big_enough if not any(c.startswith(f"{name} ~ planted_{name}.ipynb") for c in caught)]
    assert len(big_enough) > 50 and not missed, f"planted copies not caught: {missed}"
