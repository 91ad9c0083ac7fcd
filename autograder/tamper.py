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
  the kernel: each guarded test cell must carry the guard's signed marker
  (an HMAC with a per-run key). A test cell that ran without a valid marker had
  its guard line rewritten, skipped or silenced: the audit adds a
  ``TamperingDetected`` error output, so nbgrader scores it zero even if student
  code swallowed the exception. It then removes the guard cell, the guard lines
  and the markers, and redacts any output line that quotes the guard's code, so
  the autograded notebook and its feedback look like the student's notebook.

:func:`find_tampering` lists what an executed notebook's guards found (for the
``tampered`` status); :func:`cell_changes` lists edited, deleted and re-labelled
test cells against the gradebook's source cells; :class:`DropUnknownGradeIds`
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
numpy and hpml_lab_utils watched, about 3 ms when torch is watched; the whole
lab01 solution grades in the same time with and without guards (13.5 s vs
13.9 s, noise) and keeps full marks with no tampering reported.

Guaranteed (tested in ``tests/test_tamper.py``): each of these earns zero on
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
can find the guard (a random name in ``builtins``), read its HMAC key from the
closure and forge markers, patch C-level state (ctypes), or change objects the
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
import hashlib
import hmac
import importlib.util
import json
import os
import re
import sysconfig
import secrets
from typing import Any, Iterable, Mapping

from nbformat.notebooknode import NotebookNode, from_dict
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import List

from .records import NOT_RUN_KEY

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
    "numpy.allclose", "numpy.isclose", "numpy.array_equal", "numpy.array_equiv",
    "numpy.testing.assert_allclose", "numpy.testing.assert_array_equal", "numpy.testing.assert_equal",
    "numpy.testing.assert_almost_equal", "numpy.testing.assert_array_almost_equal",
    "numpy.testing.assert_array_less",
    "torch.allclose", "torch.isclose", "torch.equal", "torch.testing.assert_close",
    "math.isclose",
    "hpml_lab_utils.checks.check_close", "hpml_lab_utils.checks.check_equal", "hpml_lab_utils.checks.check_true",
    "hpml_lab_utils.speedup", "hpml_lab_utils.timing.speedup", "hpml_lab_utils.timing.bench",
    "hpml_lab_utils.timing.speedup_ratios",
]
# Builtins ipykernel itself replaces on every execution (stdin forwarding): not watched.
KERNEL_OWNED_BUILTINS = ["input", "raw_input", "_", "__", "___"]
# Packages whose event callbacks are honest (matplotlib's inline backend registers post_execute).
TRUSTED_CALLBACK_PACKAGES = ["IPython", "ipykernel", "matplotlib", "matplotlib_inline", "ipywidgets", "comm"]

_TAMPER_LINE = re.compile(EXCEPTION_NAME + r": (.+)")


# --------------------------------------------------------------------------- grader side helpers


def _is_test_cell(cell: Mapping) -> bool:
    nbg = cell.get("metadata", {}).get("nbgrader", {})
    return cell.get("cell_type") == "code" and bool(nbg.get("grade")) and not nbg.get("solution")


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


def marker_signature(key: bytes, cell_id: str, verdict: str) -> str:
    """HMAC the guard attaches to its marker: proves the real guard ran in that cell."""
    return hmac.new(key, f"{cell_id}\x00{verdict}".encode(), hashlib.sha256).hexdigest()


# --------------------------------------------------------------------------- kernel side code

# Runs once in the kernel, in the inserted setup cell, before any student code.
# Everything lives in the closure of ``_guard``; the only name left behind is a
# random one in ``builtins``. Written so the guard uses its own references only.
_SETUP_TEMPLATE = r'''
def _hpml_guard_setup(CONF):
    import builtins as B, sys as S, os as OS, hmac as HM, hashlib as HL, importlib as IL, types as T
    import importlib.util
    # the guard's own references to builtins: closure variables, not globals the notebook could shadow or patch
    (getattr, any, zip, set, range, list, isinstance, hasattr, type, len, str, dict, frozenset, tuple) = (
        B.getattr, B.any, B.zip, B.set, B.range, B.list, B.isinstance, B.hasattr, B.type, B.len, B.str, B.dict,
        B.frozenset, B.tuple)
    KERNEL_OWNED_BUILTINS = frozenset(CONF["kernel_owned"])
    ip = get_ipython()
    token, key, cell_ids = CONF["token"], bytes.fromhex(CONF["key"]), frozenset(CONF["cells"])
    cwd = OS.path.realpath(OS.getcwd())
    mods = S.modules
    sys_dict = S.__dict__
    b_dict = B.__dict__
    _get, _id, _type, _len, _str, _isinst, _sorted = dict.get, id, type, len, str, isinstance, sorted
    _startswith, _sep, _hasattr = str.startswith, OS.sep, hasattr
    _os_realpath, _real_cache = OS.path.realpath, {}

    def _realpath(path):  # cached: a file system walk per call would cost milliseconds per test cell
        real = _get(_real_cache, path)
        if real is None:
            real = _real_cache[path] = _os_realpath(path)
        return real
    FunctionType, BuiltinType = T.FunctionType, T.BuiltinFunctionType
    MethodType, ModuleType = T.MethodType, T.ModuleType
    getframe, gettrace, getprofile = S._getframe, S.gettrace, S.getprofile
    trace0, profile0 = gettrace(), getprofile()
    hmac_new, sha256 = HM.new, HL.sha256
    publish = ip.display_pub.publish

    class TamperingDetected(Exception):
        """Student code replaced something the tests rely on."""
    TamperingDetected.__module__ = "builtins"
    TamperingDetected.__qualname__ = "TamperingDetected"

    def _inside(path, folder):
        return path == folder or _startswith(path, folder.rstrip(_sep) + _sep)

    # install folders: the grader's, plus the kernel's own when it is not the submission folder
    libdirs = {top: list(dirs) for top, dirs in CONF["libdirs"].items()}
    for top in CONF["tops"]:
        try:
            spec = IL.util.find_spec(top)
        except Exception:
            spec = None
        if spec is not None and spec.submodule_search_locations:
            here = _realpath(list(spec.submodule_search_locations)[0])
            if not _inside(here, cwd) and here not in libdirs.get(top, []):
                libdirs.setdefault(top, []).append(here)

    def _watchable(v):
        return _isinst(v, (FunctionType, BuiltinType, MethodType, ModuleType, type)) or _type(v).__name__ in (
            "_ArrayFunctionDispatcher", "ufunc", "builtin_function_or_method", "method_descriptor")

    def _code_of(v):
        for attr in ("__code__",):
            c = getattr(v, attr, None)
            if c is not None:
                return c
        impl = getattr(v, "_implementation", None)
        if impl is not None and _hasattr(impl, "__code__"):
            return impl.__code__
        func = getattr(v, "__func__", None)
        if func is not None and _hasattr(func, "__code__"):
            return func.__code__
        return None

    snap = []  # (module name, module, module dict, [(attr, obj, code, defaults, kwdefaults)])
    loaded = {}
    for name in CONF["modules"]:
        try:
            m = IL.import_module(name)
        except Exception:
            continue
        loaded[name] = m
        entries = []
        for attr, v in list(m.__dict__.items()):
            if attr in ("__builtins__", "__loader__", "__spec__") or not _watchable(v):
                continue
            if name == "builtins" and attr in KERNEL_OWNED_BUILTINS:
                continue
            entries.append((attr, v, getattr(v, "__code__", None), getattr(v, "__defaults__", None),
                            getattr(v, "__kwdefaults__", None)))
        snap.append((name, m, m.__dict__, entries))
    builtins_dict = b_dict

    hook_lists = {
        "IPython input transformers (cleanup)": ip.input_transformers_cleanup,
        "IPython input transformers (post)": ip.input_transformers_post,
        "IPython AST transformers": ip.ast_transformers,
        "IPython line transforms": ip.input_transformer_manager.line_transforms,
        "IPython token transformers": ip.input_transformer_manager.token_transformers,
    }
    hook_snap = {k: (v, list(v)) for k, v in hook_lists.items()}
    itm, compiler = ip.input_transformer_manager, ip.compile
    ip_dict, ip_type = ip.__dict__, type(ip)
    shell_methods = ["run_cell", "run_cell_async", "_run_cell", "run_ast_nodes", "run_code", "transform_cell",
                     "transform_ast", "should_run_async", "showtraceback", "_showtraceback", "showsyntaxerror",
                     "ex", "ev", "safe_execfile"]

    def _lookup(cls, name):
        for k in cls.__mro__:
            if name in k.__dict__:
                return k.__dict__[name]
        return None
    shell_snap = {n: (_get(ip_dict, n), _lookup(ip_type, n)) for n in shell_methods}
    compiler_type = type(compiler)
    compiler_snap = {n: _lookup(compiler_type, n) for n in ("__call__", "ast_parse", "cache", "reset_compiler_flags")}
    itm_type = type(itm)
    itm_snap = {n: _lookup(itm_type, n) for n in ("transform_cell", "do_token_transforms", "do_one_token_transform")}
    events = ip.events
    callbacks = events.callbacks
    cb_snap = {e: list(cbs) for e, cbs in callbacks.items()}
    trusted = [d for d in (CONF["trusted_dirs"]) if d]

    def _trusted_callback(cb):
        code = _code_of(cb) or _code_of(getattr(cb, "func", None))
        if code is None:
            return False
        path = _realpath(code.co_filename)
        return any(_inside(path, d) for d in trusted)

    library_roots = [d for d in CONF["library_roots"] if d]
    key_targets = frozenset(CONF["targets"])

    def _from_library(v):
        """True when v's code lives in installed code (not in the notebook or its folder)."""
        code = _code_of(v)
        if code is None:
            call = getattr(_type(v), "__call__", None)
            code = _code_of(call) if call is not None else None
        if code is None:
            return False
        path = _realpath(code.co_filename)
        return not _inside(path, cwd) and any(_inside(path, d) for d in library_roots)

    def _provenance(dotted):
        parts = dotted.split(".")
        for i in range(_len(parts) - 1, 0, -1):
            mname = ".".join(parts[:i])
            m = _get(mods, mname)
            if m is not None:
                break
        else:
            return None
        if i != _len(parts) - 1:
            return None  # attribute of a submodule that is not imported yet
        top = parts[0]
        where = libdirs.get(top)
        mfile = getattr(m, "__file__", None)
        if mfile and where and not any(_inside(_realpath(mfile), w) for w in where):
            return "sys.modules['" + mname + "'] is not the installed " + mname
        v = _get(getattr(m, "__dict__", {}), parts[-1])
        if v is None:
            return None
        code = _code_of(v)
        if code is None:
            if _isinst(v, BuiltinType) or _type(v).__name__ in ("ufunc", "builtin_function_or_method"):
                return None
            call = getattr(_type(v), "__call__", None)
            code = _code_of(call) if call is not None else None
            if code is None:
                return None
        if where and not any(_inside(_realpath(code.co_filename), w) for w in where):
            return dotted + " was replaced"
        return None

    def _check(cell_id, free):
        found = []
        add = found.append
        if _get(sys_dict, "modules") is not mods:
            add("sys.modules was replaced")
        for name, m, mdict, entries in snap:
            if name != "builtins" and _get(mods, name) is not m:
                add("sys.modules['" + name + "'] was replaced")
            if m.__dict__ is not mdict:
                add(name + " was replaced")
                continue
            for attr, v, code, defaults, kwdefaults in entries:
                cur = _get(mdict, attr, _check)
                if cur is not v:
                    if cur is not _check and name + "." + attr not in key_targets and _from_library(cur):
                        continue  # re-bound by installed library code, e.g. torch._dynamo's wrappers
                    add(name + "." + attr + (" was deleted" if cur is _check else " was replaced"))
                elif code is not None and (getattr(v, "__code__", None) is not code
                                           or getattr(v, "__defaults__", None) is not defaults
                                           or getattr(v, "__kwdefaults__", None) is not kwdefaults):
                    add(name + "." + attr + " was modified (code or defaults)")
        if _get(mods, "builtins") is not B or _get(sys_dict, "modules") is not mods:
            add("builtins module was replaced")
        frame = getframe(2)
        if frame.f_builtins is not builtins_dict:
            add("__builtins__ of the notebook was replaced")
        g = frame.f_globals
        for n in free:
            if n in g and n in builtins_dict and _get(g, n) is not _get(builtins_dict, n) \
                    and not _from_library(_get(g, n)):  # IPython puts its own `open` in the namespace
                add("builtins." + n + " was shadowed by a global of the notebook")
        for dotted in CONF["targets"]:
            problem = _provenance(dotted)
            if problem:
                add(problem)
        for label, (lst, items) in hook_snap.items():
            if _len(lst) != _len(items) or any(a is not b for a, b in zip(lst, items)):
                add(label + " were changed")
        if ip.input_transformers_cleanup is not hook_snap["IPython input transformers (cleanup)"][0] \
                or ip.ast_transformers is not hook_snap["IPython AST transformers"][0] \
                or ip.input_transformers_post is not hook_snap["IPython input transformers (post)"][0]:
            add("IPython transformer lists were replaced")
        if ip.input_transformer_manager is not itm or ip.compile is not compiler or type(ip) is not ip_type:
            add("the IPython shell's input machinery was replaced")
        for n, (own, v) in shell_snap.items():
            if _get(ip_dict, n) is not own or _lookup(ip_type, n) is not v:
                add("IPython shell method " + n + " was replaced")
        for n, v in compiler_snap.items():
            if _lookup(type(compiler), n) is not v or n in getattr(compiler, "__dict__", {}):
                add("IPython compiler method " + n + " was replaced")
        for n, v in itm_snap.items():
            if _lookup(type(itm), n) is not v or n in getattr(itm, "__dict__", {}):
                add("IPython transformer manager method " + n + " was replaced")
        if ip.events is not events or events.callbacks is not callbacks:
            add("IPython event callbacks were replaced")
        else:
            for e, cbs in callbacks.items():
                known = _get(cb_snap, e, [])
                for cb in cbs:
                    if not any(cb is k or cb == k for k in known) and not _trusted_callback(cb):
                        add("an IPython " + e + " callback was registered")
                        break
        if gettrace() is not trace0:
            add("sys.settrace was used (a trace function is active)")
        if getprofile() is not profile0:
            add("sys.setprofile was used (a profile function is active)")
        if _get(sys_dict, "settrace") is None or _get(sys_dict, "gettrace") is not gettrace:
            add("sys.gettrace was replaced")
        seen, unique = set(), []
        for f in found:
            if f not in seen:
                seen.add(f)
                unique.append(f)
        return unique

    def _guard(cell_id, free=()):
        if cell_id not in cell_ids:
            raise TamperingDetected("the tamper guard was called from outside a test cell")
        found = _check(cell_id, free)
        verdict = "tampered" if found else "ok"
        sig = hmac_new(key, (cell_id + "\x00" + verdict).encode(), sha256).hexdigest()
        publish({CONF["mime"]: {"cell": cell_id, "verdict": verdict, "found": found, "sig": sig}}, metadata={})
        if found:
            raise TamperingDetected("; ".join(found))

    b_dict[token] = _guard
    # the set-up cell's source holds the key: keep it out of the input history
    hm = ip.history_manager
    for hist in (hm.input_hist_parsed, hm.input_hist_raw):
        if hist:
            hist[-1] = ""
    for k in ("_i", "_ii", "_iii", "_i" + str(ip.execution_count)):
        if k in ip.user_ns:
            ip.user_ns[k] = ""
    try:
        hm.db_input_cache.clear()
    except Exception:
        pass
    bad = [p for n in CONF["targets"] for p in [_provenance(n)] if p]
    if bad:
        raise TamperingDetected("; ".join(bad))


_hpml_guard_setup(__CONF__)
del _hpml_guard_setup
'''


def setup_source(conf: dict) -> str:
    """The guard setup cell's code for one notebook (``conf``: token, key, cells, modules, ...)."""
    return _SETUP_TEMPLATE.replace("__CONF__", json.dumps(conf)).strip() + "\n"


def guard_line(token: str, cell_id: str, free: Iterable[str]) -> str:
    """The one line put in front of a test cell."""
    return f"{token}({cell_id!r}, {tuple(free)!r})  # tamper guard, added by the autograder\n"


# --------------------------------------------------------------------------- preprocessors


class InsertTamperGuards(NbGraderPreprocessor):
    """Autograde, just before Execute: insert the guard setup cell and a guard line in front of each test cell."""

    watched_modules = List(DEFAULT_WATCHED, help="Modules whose callables are snapshotted.").tag(config=True)
    key_targets = List(KEY_TARGETS, help="Functions whose provenance is checked on every guard call.").tag(
        config=True)

    def preprocess(self, nb, resources):
        token = "_h" + secrets.token_hex(12)
        key = secrets.token_hex(32)
        tests = [c for c in nb.cells if _is_test_cell(c)]
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
        # installed code (stdlib, site-packages, this course's packages): a library may legitimately re-bind
        # another library's attribute (torch._dynamo wraps torch.manual_seed, IPython puts its own `open`
        # in the user namespace); code from the notebook or its folder may not
        library_roots = sorted({os.path.realpath(p) for key in ("stdlib", "platstdlib", "purelib", "platlib")
                                for p in [sysconfig.get_paths().get(key)] if p}
                               | {d for d in (package_dir("hpml_lab_utils"),) if d})
        builtin_names = set(dir(builtins))
        guarded = {}
        for i, cell in enumerate(tests):
            cell_id = cell.metadata.get("nbgrader", {}).get("grade_id") or f"cell{i}"
            if cell.source.lstrip().startswith("%%"):
                continue  # a cell magic must stay on the first line; such a cell is not guarded
            line = guard_line(token, cell_id, [n for n in free_names(cell.source) if n in builtin_names])
            cell.source = line + cell.source
            guarded[cell_id] = line
        conf = {
            "token": token, "key": key, "cells": sorted(guarded), "modules": modules, "tops": tops,
            "libdirs": libdirs, "kernel_owned": KERNEL_OWNED_BUILTINS, "targets": list(self.key_targets),
            "trusted_dirs": trusted, "library_roots": library_roots, "mime": GUARD_MIME,
        }
        setup = from_dict({
            "cell_type": "code", "execution_count": None, "outputs": [], "source": setup_source(conf),
            "metadata": {"editable": False, "deletable": False, SETUP_KEY: "setup",
                         "nbgrader": {"grade": False, "solution": False, "locked": True, "task": False,
                                      "grade_id": "hpml_tamper_guard_setup", "schema_version": 3}},
        })
        if (nb.get("nbformat"), nb.get("nbformat_minor", 0)) >= (4, 5):
            setup["id"] = "hpml-tamper-guard"
        nb.cells.insert(0, setup)
        resources[RESOURCES_KEY] = {"key": key, "token": token, "guarded": guarded, "setup": setup.source}
        return nb, resources


def error_output(ename: str, message: str) -> NotebookNode:
    """An ``error`` output whose traceback is the one line ``ename: message``."""
    return from_dict({"output_type": "error", "ename": ename, "evalue": message, "traceback": [f"{ename}: {message}"]})


def _one_line_error(message: str) -> NotebookNode:
    return error_output(EXCEPTION_NAME, message)


class AuditTamperGuards(NbGraderPreprocessor):
    """Autograde, just after Execute: verify each test cell's signed guard marker, then remove every guard trace."""

    min_quote_length = 12

    def preprocess(self, nb, resources):
        info = resources.get(RESOURCES_KEY)
        if not info:
            return nb, resources
        key = bytes.fromhex(info["key"])
        token = info["token"]
        for cell in nb.cells:
            if cell.get("metadata", {}).get(SETUP_KEY) == "setup":
                errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
                if errors and errors[0].get("ename") != EXCEPTION_NAME:
                    # not the student's doing (it ran before any student code): a grader error, not a zero
                    raise RuntimeError("the tamper guard's set-up cell failed: "
                                       f"{errors[0].get('ename')}: {errors[0].get('evalue')}")
        nb.cells = [c for c in nb.cells if c.get("metadata", {}).get(SETUP_KEY) != "setup"]
        guard_code = [ln.strip() for ln in info["setup"].splitlines() if len(ln.strip()) >= self.min_quote_length]
        guard_code += [token, info["key"]]
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            cell_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            line = info["guarded"].get(cell_id) if _is_test_cell(cell) else None
            if line is not None and cell.source.startswith(line):
                cell.source = cell.source[len(line):]
            outputs, verdicts = [], []
            for out in cell.get("outputs", []):
                data = out.get("data", {}) if out.get("output_type") in ("display_data", "execute_result") else {}
                if GUARD_MIME in data:
                    marker = data[GUARD_MIME]
                    if (line is not None and isinstance(marker, dict) and marker.get("cell") == cell_id
                            and hmac.compare_digest(str(marker.get("sig", "")),
                                                    marker_signature(key, cell_id, str(marker.get("verdict"))))):
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
        return nb, resources

    def _enforce(self, cell, cell_id, verdicts):
        # no "ran" condition: a kernel that skipped the cell entirely must not score it as passed either
        has_error = any(o.get("output_type") == "error" and o.get("ename") == EXCEPTION_NAME for o in cell.outputs)
        bad = [v for v in verdicts if v.get("verdict") != "ok"]
        if bad and not has_error:
            cell.outputs.append(_one_line_error("; ".join(bad[0].get("found") or ["tampering"])))
        elif not verdicts and not has_error:
            cell.outputs.append(_one_line_error(
                f"the tamper guard did not run in test cell {cell_id} (its code was rewritten or skipped)"))


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
        if cell.get("cell_type") != "code" or not _is_test_cell(cell):
            continue
        cell_id = cell.metadata.get("nbgrader", {}).get("grade_id", "?")
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error" and out.get("ename") == EXCEPTION_NAME:
                found.append(f"{cell_id}: {out.get('evalue', '')}")
    return found


def source_cells_from_gradebook(db_url: str, assignment: str, notebook: str) -> dict[str, dict]:
    """The source cells ``generate_assignment`` recorded: ``{grade_id: {...}}`` for :func:`cell_changes`."""
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gb:
        nb = gb.find_notebook(notebook, assignment)
        points = {g.name: float(g.max_score) for g in nb.grade_cells}
        solutions = {c.name for c in nb.solution_cells}
        return {
            c.name: {"cell_type": c.cell_type, "locked": bool(c.locked), "source": c.source, "checksum": c.checksum,
                     "points": points.get(c.name), "grade": c.name in points, "solution": c.name in solutions}
            for c in nb.source_cells
        }


def cell_changes(submitted_nb, source_cells: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Changes a submission made to graded or locked cells, in words, for the instructor.

    ``source_cells``: ``{grade_id: {"locked", "source", "points", "grade", "cell_type"}}`` (see
    :func:`source_cells_from_gradebook`). Reports deleted graded cells, edited locked cells, changed
    points, unknown (renamed) and duplicated grade ids, and changed cell types or flags. The gradebook
    wins in every case: this only reports.
    """
    changes, seen = [], {}
    for cell in submitted_nb.cells:
        nbg = cell.get("metadata", {}).get("nbgrader")
        if not nbg:
            continue
        gid = nbg.get("grade_id")
        if gid is None:
            continue
        seen[gid] = seen.get(gid, 0) + 1
        src = source_cells.get(gid)
        if src is None:
            changes.append(f"cell {gid!r}: grade id not in the source notebook (renamed or invented)")
            continue
        if cell.get("cell_type") != src.get("cell_type"):
            changes.append(f"cell {gid}: cell type changed to {cell.get('cell_type')}")
        if src.get("locked") and _norm(cell.get("source", "")) not in (
                _norm(src.get("source", "")), _norm(_without_hidden_tests(src.get("source", "")))):
            changes.append(f"cell {gid}: locked cell edited (restored from the source)")
        if src.get("grade") and nbg.get("points") is not None and src.get("points") is not None:
            try:
                differs = float(nbg.get("points")) != float(src["points"])
            except (TypeError, ValueError):
                differs = True
            if differs:
                changes.append(f"cell {gid}: points changed from {src['points']:g} to {nbg.get('points')}")
        if bool(nbg.get("locked")) != bool(src.get("locked")):
            changes.append(f"cell {gid}: locked flag changed to {bool(nbg.get('locked'))}")
        if bool(nbg.get("grade")) != bool(src.get("grade")):
            changes.append(f"cell {gid}: grade flag changed to {bool(nbg.get('grade'))}")
        if "solution" in src and bool(nbg.get("solution")) != bool(src["solution"]):
            changes.append(f"cell {gid}: solution flag changed to {bool(nbg.get('solution'))}")
    for gid, n in seen.items():
        if n > 1:
            changes.append(f"cell {gid}: grade id used by {n} cells")
    for gid, src in source_cells.items():
        if src.get("grade") and gid not in seen:
            changes.append(f"cell {gid}: graded cell deleted (restored from the source)")
    return changes


def _norm(source: str) -> str:
    return "\n".join(line.rstrip() for line in source.splitlines() if line.strip())


def _without_hidden_tests(source: str, begin: str = "BEGIN HIDDEN TESTS", end: str = "END HIDDEN TESTS") -> str:
    """A source cell as released to students (nbgrader's ClearHiddenTests drops the marked region)."""
    kept, inside = [], False
    for line in source.splitlines():
        if begin in line:
            inside = True
        elif end in line:
            inside = False
        elif not inside:
            kept.append(line)
    return "\n".join(kept)


class DropUnknownGradeIds(NbGraderPreprocessor):
    """Sanitize, before OverwriteCells: unknown grade ids become plain cells; known ones get their flags back.

    - A cell whose grade id is not in the gradebook (renamed or invented) becomes a plain cell. nbgrader
      0.9.6 would drop the id but keep ``grade: true`` and then fail the whole submission with
      ``KeyError: 'grade_id'`` in ``add_missing_cells``; now the original cell is restored instead.
    - A cell with a known grade id gets the gradebook's ``grade``/``solution``/``task``/``locked`` flags
      back. nbgrader checks ``locked`` and ``points`` but not the others, and a flipped flag on an edited
      locked cell makes it fail the submission with ``Inconsistent checksums``.
    """

    def preprocess(self, nb, resources):
        from nbgrader.api import Gradebook

        ids = resources["nbgrader"]
        with Gradebook(ids["db_url"]) as gb:
            source_nb = gb.find_notebook(ids["notebook"], ids["assignment"])
            locked = {c.name: bool(c.locked) for c in source_nb.source_cells}
            flags = {name: {"grade": False, "solution": False, "task": False, "locked": value}
                     for name, value in locked.items()}
            for attr, cells in (("grade", source_nb.grade_cells), ("solution", source_nb.solution_cells),
                                ("task", source_nb.task_cells)):
                for c in cells:
                    if c.name in flags:
                        flags[c.name][attr] = True
        for cell in nb.cells:
            nbg = cell.get("metadata", {}).get("nbgrader")
            if not nbg:
                continue
            gid = nbg.get("grade_id")
            if gid in flags:
                for attr, value in flags[gid].items():
                    if bool(nbg.get(attr)) != value:
                        self.log.warning("cell %s: %s flag restored to %s", gid, attr, value)
                        nbg[attr] = value
            elif nbg.get("grade") or nbg.get("locked") or nbg.get("solution") or nbg.get("task"):
                self.log.warning("cell with unknown grade id %r made a plain cell", gid)
                del cell.metadata["nbgrader"]
        return nb, resources
