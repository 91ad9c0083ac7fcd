"""Tamper detection for autograding: guard cells, a post-run audit, and reports for the instructor.

Student code runs in the same kernel as the tests, so a submission can replace
what the tests rely on (``numpy.allclose = lambda *a, **k: True``, a fake
``sys.modules['numpy']``, ``builtins.abs``, the helpers of
``hpml_lab_utils.checks``, an IPython input transformer that deletes ``assert``
lines...). Two nbgrader preprocessors make that visible and worth zero points:

- :class:`InsertTamperGuards` (autograde, just before ``Execute``) inserts one
  locked, ungraded *guard setup* cell at the very top of the notebook, before
  any student code. It snapshots, inside a closure, the callables of the
  watched modules (numpy, numpy.testing, math, builtins, hpml_lab_utils and its
  ``checks``/``timing``, torch when the tests use it, every module a test cell
  imports), ``sys.modules``, the IPython hooks that can rewrite or skip code
  (input and AST transformers, ``pre_run_cell``/``pre_execute``/... callbacks,
  the shell's ``run_cell`` family, its compiler) and ``sys.gettrace()`` /
  ``sys.getprofile()``. Every graded test cell then starts with one line that
  calls the guard. The guard compares identity with the snapshot, using only
  references it took at set-up (so replacing ``getattr``, ``isinstance`` or
  ``sys.modules`` does not blind it), and checks provenance that does not
  depend on the snapshot: the key comparison functions must be C builtins or
  Python code whose ``co_filename`` lies in the library's install folder, and a
  watched module must not be loaded from the submission's own folder. On any
  difference it raises ``TamperingDetected: numpy.allclose was replaced`` (one
  line, naming every replaced thing), so the cell scores zero. It also names a
  builtin that the test uses freely but the notebook has shadowed with a global
  (``abs = lambda x: 0``). It never objects to ``import numpy as np``,
  ``from numpy import allclose`` or a student's own helper called ``check``.
- :class:`AuditTamperGuards` (autograde, just after ``Execute``) works outside
  the kernel: each guarded test cell must carry the guard's marker with that
  cell's own nonce (a random value the grader writes into the cell's guard line
  only; no key lives in the kernel). A test cell that ran without it had its
  guard line rewritten, skipped or silenced: the audit adds a
  ``TamperingDetected`` error output, so nbgrader scores it zero even if student
  code swallowed the exception. After each guarded test cell the grader runs a
  probe of its own, a cell that must fail with an error quoting a name only the grader knows
  (:data:`PROBE_KEY`); a probe whose error does not come back means the kernel's
  reports were changed (errors dropped, replies rewritten): from the test cell
  before it on, no test cell that passed is trusted, and each gets
  ``TamperingDetected``. It then removes the guard cell, the guard lines
  and the markers, and redacts any output line that quotes the guard's code, so
  the autograded notebook and its feedback look like the student's notebook.

:func:`find_tampering` lists what an executed notebook's guards found (for the
``tampered`` status); :mod:`autograder.pipeline.edited_cells` lists edited, deleted and re-labelled
test cells against the released notebook, and its :class:`DropUnknownGradeIds`
(sanitize, before ``OverwriteCells``) makes a cell whose ``grade_id`` is not in
the gradebook a plain cell, so ``OverwriteCells.add_missing_cells`` restores the
original test cell.

Where they go (``autograder/nbgrader_config.py``)::

    c.Autograde.sanitize_preprocessors = [ClearOutput, DeduplicateIds, OverwriteKernelspec,
                                          DropUnknownGradeIds, OverwriteCells, CheckCellMetadata]
    c.Autograde.autograde_preprocessors = [InsertTamperGuards, Execute, AuditTamperGuards, IgnorePattern,
                                           ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades,
                                           AssignLatePenalties, CheckCellMetadata]
    c.Execute.extra_arguments = [..., "--HistoryManager.enabled=False"]  # no history file to read back

Cost (2 shared cores, load 4-5): one guard call takes about 1.2 ms with
numpy and hpml_lab_utils watched, about 3 ms when torch is watched; each probe
about 15 ms more (a cell's round trip and a syntax error's report); the whole
lab01 solution grades in the same time with and without guards (13.5 s vs
13.9 s, noise) and keeps full marks with no tampering reported.

Guaranteed (tested in ``tests/autograder/test_tamper.py``): each of these earns zero on
the test cells that run after it and is named in ``find_tampering``: replacing
``numpy.allclose``, ``numpy.testing.assert_allclose``, ``torch.allclose``,
``builtins.abs`` (or shadowing it with a global the test uses), a fake
``sys.modules['numpy']``, replacing ``hpml_lab_utils.checks.check_close`` or
its ``__defaults__``, input transformers (including one that removes the guard
line itself), AST transformers, ``pre_run_cell`` hooks, ``sys.settrace``, and a
silenced ``showtraceback``. Honest notebooks (``import numpy as np``,
``from numpy import allclose``, their own ``check``, inline plots, autoreload)
are not flagged. Test cells that ran *before* the tampering are graded normally.

Not guaranteed: code in the same process can defeat any in-process check. It
can find the guard (a random name in ``builtins``) and call it, hook the
execution of later cells to read their nonces, tell a probe from a test cell by
its source, patch C-level state (ctypes), or change objects the
guard does not watch (methods of library classes such as
``hpml_lab_utils.timing.Stats``, ``numpy.ndarray`` subclasses it returns,
modules it does not list). An encoded copy of hidden test code printed by the
student is not redacted. The guard raises the bar and makes the common
monkeypatches fail loudly and visibly; the sandbox (a separate process, scratch
folder, limits) is what protects the grader.
"""

from __future__ import annotations

import ast
import builtins
import hmac
import importlib.util
import json
import os
import re
import secrets
import sysconfig
from collections.abc import Iterable
from pathlib import Path

from nbformat.notebooknode import NotebookNode, from_dict
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import List

from ..labs import is_test_cell
from ..records import NOT_RUN_KEY
from .probes import PROBE_KEY, distrust_after_silent_probe, probe_cell

EXCEPTION_NAME = "TamperingDetected"
GUARD_MIME = "application/vnd.hpml.guard+json"
SETUP_KEY = "hpml_tamper"  # cell metadata key of the guard setup cell
RESOURCES_KEY = "hpml_tamper"

# Modules whose callables are snapshotted even if no test cell imports them.
DEFAULT_WATCHED = [
    "builtins",
    "math",
    "operator",
    "numpy",
    "numpy.testing",
    "hpml_lab_utils",
    "hpml_lab_utils.checks",
    "hpml_lab_utils.timing",
]
# Also snapshotted, but only when a test cell mentions them (importing torch costs seconds).
OPTIONAL_WATCHED = {"torch": ["torch", "torch.testing"]}

# What tests rely on most: checked for provenance on every guard call, even when
# the module was first imported by student code after the snapshot.
KEY_TARGETS = [
    "numpy.allclose",
    "numpy.isclose",
    "numpy.array_equal",
    "numpy.array_equiv",
    "numpy.testing.assert_allclose",
    "numpy.testing.assert_array_equal",
    "numpy.testing.assert_equal",
    "numpy.testing.assert_almost_equal",
    "numpy.testing.assert_array_almost_equal",
    "numpy.testing.assert_array_less",
    "torch.allclose",
    "torch.isclose",
    "torch.equal",
    "torch.testing.assert_close",
    "math.isclose",
    "hpml_lab_utils.checks.check_close",
    "hpml_lab_utils.checks.check_equal",
    "hpml_lab_utils.checks.check_true",
    # plain functions only: a @contextmanager's code is contextlib's (graded_alone and silence_stderr are
    # snapshotted with the rest of hpml_lab_utils.checks)
    "hpml_lab_utils.checks.optimizer_step_difference",
    "hpml_lab_utils.checks.optimizer_trajectory",
    "hpml_lab_utils.checks.silenced",
    "hpml_lab_utils.speedup",
    "hpml_lab_utils.timing.speedup",
    "hpml_lab_utils.timing.bench",
    "hpml_lab_utils.timing.speedup_ratios",
]
# Builtins ipykernel itself replaces on every execution (stdin forwarding): not watched.
KERNEL_OWNED_BUILTINS = ["input", "raw_input", "_", "__", "___"]
# Packages whose event callbacks are honest (matplotlib's inline backend registers post_execute).
TRUSTED_CALLBACK_PACKAGES = ["IPython", "ipykernel", "matplotlib", "matplotlib_inline", "ipywidgets", "comm"]

# --------------------------------------------------------------------------- grader side helpers


def package_dir(name: str) -> str | None:
    """Install folder of a top-level package, found without importing it (None if not installed)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return os.path.realpath(list(spec.submodule_search_locations)[0])
    if spec.origin and spec.origin not in ("built-in", "frozen"):
        return os.path.realpath(spec.origin)
    return None


# Packages whose code sits in the notebook's namespace (IPython's own `open`) and may re-bind other attributes
NAMESPACE_PACKAGES = ("IPython", "ipykernel")


def installed_code_roots(packages: Iterable[str]) -> list[str]:
    """Folders of installed code, where a library may legitimately re-bind another library's attribute
    (torch._dynamo wraps torch.manual_seed, IPython puts its own ``open`` in the user namespace); code from the
    notebook or its folder may not. This Python's stdlib and site-packages, the course's package, and the folder
    each of ``packages`` and of :data:`NAMESPACE_PACKAGES` is installed in: that can be another one (PYTHONPATH,
    a user site, Debian's dist-packages). The folder holding the course's package is not one: it is the
    repository, not an install."""
    roots = {
        os.path.realpath(p)
        for key in ("stdlib", "platstdlib", "purelib", "platlib")
        for p in [sysconfig.get_paths().get(key)]
        if p
    }
    course = package_dir("hpml_lab_utils")
    if course:
        roots.add(course)
    for name in (*packages, *NAMESPACE_PACKAGES):
        where = package_dir(name)
        if where and (course is None or os.path.dirname(where) != os.path.dirname(course)):
            roots.add(os.path.dirname(where))
    return sorted(roots)


def free_names(source: str) -> list[str]:
    """Names a cell reads but never binds (the ones student globals could shadow); [] if it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    loaded, bound = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return sorted(loaded - bound)


def imported_modules(source: str) -> list[str]:
    """Modules a cell imports (dotted names and their parents); [] if it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
    out = []
    for name in names:
        parts = name.split(".")
        out += [".".join(parts[: i + 1]) for i in range(len(parts))]
    return out


# --------------------------------------------------------------------------- kernel side code

GUARD_FILE = Path(__file__).with_name("kernel_guard.py")  # the kernel-side code, read as text, never imported here
SETUP_FUNCTION = "_hpml_guard_setup"
GUARD_LINE_MARK = "# tamper guard, added by the autograder"


def setup_source(conf: dict) -> str:
    """The guard set-up cell's code for one notebook: :mod:`autograder.isolation.kernel_guard`, then one call with ``conf``.

    ``conf`` (token, key, cells, modules, ...) travels as a JSON string that the
    kernel parses, so no value of it can ever be read as code.
    """
    code = GUARD_FILE.read_text(encoding="utf-8")
    code = code[code.index(f"def {SETUP_FUNCTION}(") :].strip()  # the function, without the module docstring
    call = f"{SETUP_FUNCTION}(__import__('json').loads({json.dumps(conf)!r}))"
    return f"{code}\n\n\n{call}\ndel {SETUP_FUNCTION}\n"


def guard_line(token: str, cell_id: str, free: Iterable[str], nonce: str) -> str:
    """The one line put in front of a test cell (``nonce``: the value its marker must carry back)."""
    return f"{token}({cell_id!r}, {tuple(free)!r}, {nonce!r})  {GUARD_LINE_MARK}\n"


# --------------------------------------------------------------------------- preprocessors


class InsertTamperGuards(NbGraderPreprocessor):
    """Autograde, just before Execute: insert the guard setup cell and a guard line in front of each test cell."""

    watched_modules = List(DEFAULT_WATCHED, help="Modules whose callables are snapshotted.").tag(config=True)
    key_targets = List(KEY_TARGETS, help="Functions whose provenance is checked on every guard call.").tag(config=True)

    def preprocess(self, nb, resources):
        token = "_h" + secrets.token_hex(12)
        tests = [c for c in nb.cells if is_test_cell(c)]
        modules = list(self.watched_modules)
        all_test_source = "\n".join(c.source for c in tests)
        for top, extra in OPTIONAL_WATCHED.items():
            if re.search(r"\b" + re.escape(top) + r"\b", all_test_source):
                modules += extra
        for c in tests:
            modules += [m for m in imported_modules(c.source) if m not in modules]
        modules = list(dict.fromkeys(modules))
        tops = sorted({t.split(".")[0] for t in modules + self.key_targets} - {"builtins", "math", "operator"})
        libdirs = {t: [d] for t in tops for d in [package_dir(t)] if d}
        trusted = [d for p in TRUSTED_CALLBACK_PACKAGES for d in [package_dir(p)] if d]
        library_roots = installed_code_roots(tops)
        builtin_names = set(dir(builtins))
        guarded, nonces = {}, {}
        for i, cell in enumerate(tests):
            cell_id = cell.metadata.get("nbgrader", {}).get("grade_id") or f"cell{i}"
            if cell.source.lstrip().startswith("%%"):
                continue  # a cell magic must stay on the first line; such a cell is not guarded
            nonces[cell_id] = secrets.token_hex(16)
            line = guard_line(
                token, cell_id, [n for n in free_names(cell.source) if n in builtin_names], nonces[cell_id]
            )
            cell.source = line + cell.source
            guarded[cell_id] = line
        conf = {
            "token": token,
            "cells": sorted(guarded),
            "modules": modules,
            "tops": tops,
            "libdirs": libdirs,
            "kernel_owned": KERNEL_OWNED_BUILTINS,
            "targets": list(self.key_targets),
            "trusted_dirs": trusted,
            "library_roots": library_roots,
            "mime": GUARD_MIME,
        }
        setup = from_dict(
            {
                "cell_type": "code",
                "execution_count": None,
                "outputs": [],
                "source": setup_source(conf),
                "metadata": {
                    "editable": False,
                    "deletable": False,
                    SETUP_KEY: "setup",
                    "nbgrader": {
                        "grade": False,
                        "solution": False,
                        "locked": True,
                        "task": False,
                        "grade_id": "hpml_tamper_guard_setup",
                        "schema_version": 3,
                    },
                },
            }
        )
        if (nb.get("nbformat"), nb.get("nbformat_minor", 0)) >= (4, 5):
            setup["id"] = "hpml-tamper-guard"
        nb.cells.insert(0, setup)
        version = (nb.get("nbformat"), nb.get("nbformat_minor", 0))
        with_probes = []
        for cell in nb.cells:
            with_probes.append(cell)
            if is_test_cell(cell) and cell.metadata.get("nbgrader", {}).get("grade_id") in guarded:
                with_probes.append(probe_cell("_hpml_probe_" + secrets.token_hex(12), version, GUARD_LINE_MARK))
        nb.cells = with_probes
        resources[RESOURCES_KEY] = {"token": token, "guarded": guarded, "nonces": nonces, "setup": setup.source}
        return nb, resources


def error_output(ename: str, message: str) -> NotebookNode:
    """An ``error`` output whose traceback is the one line ``ename: message``."""
    return from_dict({"output_type": "error", "ename": ename, "evalue": message, "traceback": [f"{ename}: {message}"]})


GRADER_ERRORS_KEY = "hpml_grader_errors"  # cell metadata: the one-line errors the grader itself added to the cell


def add_grader_error(cell, ename: str, message: str) -> None:
    """Append the grader's own error output ``ename: message`` to ``cell`` and note it in the cell's metadata.

    The note is what tells the feedback that this message was written by the grader, not sent by the kernel
    (which student code controls): :mod:`autograder.pipeline.feedback_outputs` shows only such messages in full.
    """
    out = error_output(ename, message)
    cell.outputs.append(out)
    cell.metadata.setdefault(GRADER_ERRORS_KEY, []).append(out["traceback"][0])


def _add_tamper_error(cell, message: str) -> None:
    add_grader_error(cell, EXCEPTION_NAME, message)


class AuditTamperGuards(NbGraderPreprocessor):
    """Autograde, just after Execute: verify each test cell's signed guard marker, then remove every guard trace."""

    min_quote_length = 12

    def preprocess(self, nb, resources):
        info = resources.get(RESOURCES_KEY)
        if not info:
            return nb, resources
        nonces = info["nonces"]
        token = info["token"]
        for cell in nb.cells:
            if cell.get("metadata", {}).get(SETUP_KEY) == "setup":
                errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
                if errors and errors[0].get("ename") != EXCEPTION_NAME:
                    # not the student's doing (it ran before any student code): a grader error, not a zero
                    raise RuntimeError(
                        f"the tamper guard's set-up cell failed: {errors[0].get('ename')}: {errors[0].get('evalue')}"
                    )
        nb.cells = [c for c in nb.cells if c.get("metadata", {}).get(SETUP_KEY) != "setup"]
        guard_code = [ln.strip() for ln in info["setup"].splitlines() if len(ln.strip()) >= self.min_quote_length]
        guard_code += [token, *nonces.values()]
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            cell_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            line = info["guarded"].get(cell_id) if is_test_cell(cell) else None
            if line is not None and cell.source.startswith(line):
                cell.source = cell.source[len(line) :]
            outputs, verdicts = [], []
            for out in cell.get("outputs", []):
                data = out.get("data", {}) if out.get("output_type") in ("display_data", "execute_result") else {}
                if GUARD_MIME in data:
                    marker = data[GUARD_MIME]
                    if (
                        line is not None
                        and isinstance(marker, dict)
                        and marker.get("cell") == cell_id
                        and hmac.compare_digest(str(marker.get("nonce", "")), nonces.get(cell_id, ""))
                    ):
                        verdicts.append(marker)
                    continue  # markers never stay in the notebook; forged ones are ignored
                if out.get("output_type") == "error" and out.get("ename") == EXCEPTION_NAME:
                    out["traceback"] = [f"{EXCEPTION_NAME}: {out.get('evalue', '')}"]
                outputs.append(out)
            cell.outputs = outputs
            # a cell the grader did not (fully) run has its NotRun error and no verdict to check
            if line is not None and NOT_RUN_KEY not in cell.metadata:
                self._enforce(cell, cell_id, verdicts)
            _redact_outputs(cell, guard_code)
        # after the markers: a cell whose guard did not run keeps that message; then no probe stays
        distrust_after_silent_probe(nb, _add_tamper_error)
        nb.cells = [c for c in nb.cells if PROBE_KEY not in c.get("metadata", {})]
        return nb, resources

    def _enforce(self, cell, cell_id, verdicts):
        # no "ran" condition: a kernel that skipped the cell entirely must not score it as passed either
        has_error = any(o.get("output_type") == "error" and o.get("ename") == EXCEPTION_NAME for o in cell.outputs)
        bad = [v for v in verdicts if v.get("verdict") != "ok"]
        if bad and not has_error:
            _add_tamper_error(cell, "; ".join(bad[0].get("found") or ["tampering"]))
        elif not verdicts and not has_error:
            _add_tamper_error(
                cell, f"the tamper guard did not run in test cell {cell_id} (its code was rewritten or skipped)"
            )


def _redact_outputs(cell, needles: list[str], replacement: str = "[line hidden: autograder code]") -> None:
    def hit(text: str) -> bool:
        return any(n in text for n in needles)

    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream":
            text = out.get("text", "")
            if hit(text):
                out["text"] = "".join((replacement + "\n") if hit(ln) else ln for ln in text.splitlines(True))
        elif kind == "error":
            if hit(out.get("evalue", "")):
                out["evalue"] = replacement
            if any(hit(t) for t in out.get("traceback", [])):
                out["traceback"] = [f"{out.get('ename', 'Error')}: {out.get('evalue', '')}"]
        else:
            data = out.get("data", {})
            for mime in list(data):
                if isinstance(data[mime], str) and hit(data[mime]):
                    if mime == "text/plain":
                        data[mime] = replacement
                    else:
                        del data[mime]


# --------------------------------------------------------------------------- reports for the instructor


def find_tampering(executed_nb) -> list[str]:
    """What the guards found in an executed (autograded) notebook: ``["test_x: numpy.allclose was replaced", ...]``.

    Empty for an honest notebook. Reads only ``TamperingDetected`` error outputs of graded test cells.
    """
    found = []
    for cell in executed_nb.cells:
        if cell.get("cell_type") != "code" or not is_test_cell(cell):
            continue
        cell_id = cell.metadata.get("nbgrader", {}).get("grade_id", "?")
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error" and out.get("ename") == EXCEPTION_NAME:
                found.append(f"{cell_id}: {out.get('evalue', '')}")
    return found
