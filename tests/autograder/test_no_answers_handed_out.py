"""Nothing a student receives computes a graded answer (house rule 2).

Two checks:

- **Behaviour, for the package.** Each graded pure function a lab lists in its
  ``lab.toml`` (``[graded_functions]``, with its arguments' domain) is taken from the
  reference solution and called on fresh seeded inputs; so is every public
  function of ``hpml_lab_utils`` that takes the same number of arguments. A
  helper that returns the same results on every input is the graded answer
  handed out (``roofline.attainable`` was lab01's ``attainable_gflops``).
- **Text, for the lectures and the package.** Each graded function's body,
  with its local names and docstring removed, is compared with every function
  defined in ``course/`` and ``hpml_lab_utils``: a function that contains most
  of it (token 6-grams) is a near-verbatim copy.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
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
NEAR_VERBATIM = 0.75  # share of a graded body's 6-grams found in one other function
MIN_TOKENS = 40  # shorter graded bodies (one-line formulas) are left to the behaviour check

# graded pure functions and their arguments' domains, from each lab's lab.toml ([graded_functions.NAME]); small
# values, since every package function of the same arity is called with them
GRADED = [(lab.name, name, specs) for lab in all_labs() for name, specs in lab.graded_functions.items()]
# package functions never called here: they measure, launch, draw, train or wait
SIDE_EFFECTS = re.compile(
    r"measure|launch|torchrun|plot|explore|bench|report|train|seed|save|load|sleep|wait|"
    r"kill|speedup|time_|timer|show|widget|selfcheck|download|cache|run|pick|fast"
)


def answer_cells(lab: str) -> list[str]:
    nb = json.loads((ROOT / "solutions" / lab / f"{lab}.ipynb").read_text())
    return [
        "".join(c["source"])
        for c in nb["cells"]
        if c["cell_type"] == "code" and c["metadata"].get("nbgrader", {}).get("solution")
    ]


def reference(lab: str, name: str):
    namespace = {"math": math, "np": np}
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


def normalised_tokens(fn: ast.FunctionDef) -> list[str]:
    """The body's tokens with the docstring dropped and every argument and local variable renamed to v."""
    local = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    local |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    body = (
        fn.body[1:]
        if fn.body and isinstance(fn.body[0], ast.Expr) and isinstance(fn.body[0].value, ast.Constant)
        else fn.body
    )
    text = "\n".join(ast.unparse(statement) for statement in body)
    return ["v" if t in local else t for t in re.findall(r"\w+|[^\w\s]", text)]


def functions_in(source: str) -> list[ast.FunctionDef]:
    source = "\n".join(line for line in source.split("\n") if not line.lstrip().startswith(("%", "!")))
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]


def grams(tokens: list[str], k: int = 6) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + k]) for i in range(len(tokens) - k + 1)}


def given_to_students() -> list[tuple[str, ast.FunctionDef]]:
    found = []
    for path in sorted((ROOT / "course").glob("*.ipynb")):
        for i, cell in enumerate(json.loads(path.read_text())["cells"]):
            if cell["cell_type"] == "code":
                found += [(f"{path.name} cell {i}", fn) for fn in functions_in("".join(cell["source"]))]
    for path in sorted((ROOT / "hpml_lab_utils").glob("*.py")):
        found += [(path.name, fn) for fn in functions_in(path.read_text())]
    return found


def test_no_graded_body_is_copied_into_lectures_or_helpers():
    theirs = [(where, fn.name, grams(normalised_tokens(fn))) for where, fn in given_to_students()]
    copies = []
    for lab in sorted(p.name for p in (ROOT / "solutions").iterdir() if p.is_dir()):
        for source in answer_cells(lab):
            for fn in functions_in(source):
                tokens = normalised_tokens(fn)
                if len(tokens) < MIN_TOKENS:
                    continue
                ours = grams(tokens)
                for where, name, other in theirs:
                    shared = len(ours & other) / len(ours)
                    if shared >= NEAR_VERBATIM:
                        copies.append(f"{lab}.{fn.name} ~ {where}: {name} ({shared:.0%} of its 6-grams)")
    assert not copies, "graded bodies copied where students can read them:\n" + "\n".join(copies)
