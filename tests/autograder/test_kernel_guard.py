"""The kernel-side tamper guard (``autograder/isolation/kernel_guard.py``) run in an in-process IPython shell.

The same set-up cell the autograder inserts (:class:`InsertTamperGuards`) runs
here without a kernel: an honest test cell gets an ``ok`` marker, a replaced
``numpy.allclose`` makes the next test cell raise ``TamperingDetected``.
"""

from __future__ import annotations

import ast
import builtins
import sys

import numpy
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.isolation.tamper import GUARD_MIME, SETUP_FUNCTION, InsertTamperGuards, setup_source


def _test_cell(grade_id: str, source: str):
    cell = new_code_cell(source)
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "locked": True, "grade_id": grade_id, "points": 1}
    return cell


@pytest.fixture
def guarded_shell(request, tmp_path, monkeypatch):
    """(shell, guarded notebook) with the guard set up; the shell, numpy and builtins are restored afterwards.
    The test cell's source may be given as the fixture's parameter (indirect parametrization)."""
    from IPython.core.displaypub import CapturingDisplayPublisher
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    shell = InteractiveShell.instance(config=config)
    shell.display_pub = CapturingDisplayPublisher()
    monkeypatch.chdir(tmp_path)  # the submission's folder, as in a grading kernel (not the repository's .venv)
    source = getattr(request, "param", "import numpy as np\nassert np.allclose([1.0], [1.0])")
    nb = new_notebook(cells=[_test_cell("test_close", source)])
    nb, resources = InsertTamperGuards().preprocess(nb, {})
    allclose, before = numpy.allclose, set(vars(builtins))
    result = shell.run_cell(nb.cells[0].source)
    try:
        assert result.success, result.error_in_exec
        yield shell, nb
    finally:
        numpy.allclose = allclose
        for name in set(vars(builtins)) - before:
            delattr(builtins, name)
        InteractiveShell.clear_instance()


def _markers(shell) -> list[dict]:
    outputs = [out if isinstance(out, dict) else vars(out) for out in shell.display_pub.outputs]
    return [out["data"][GUARD_MIME] for out in outputs if GUARD_MIME in out["data"]]


def test_an_honest_test_cell_gets_an_ok_with_its_own_nonce(guarded_shell):
    shell, nb = guarded_shell
    result = shell.run_cell(nb.cells[1].source)
    assert result.success, result.error_in_exec
    [marker] = _markers(shell)
    nonce = ast.literal_eval(ast.parse(nb.cells[1].source.splitlines()[0]).body[0].value.args[2])
    assert marker["cell"] == "test_close" and marker["verdict"] == "ok" and marker["nonce"] == nonce
    assert len(nonce) == 32 and nonce not in nb.cells[0].source  # written into its own cell only
    assert SETUP_FUNCTION not in shell.user_ns  # the set-up function deletes itself


def test_a_replaced_allclose_is_named(guarded_shell):
    shell, nb = guarded_shell
    assert shell.run_cell("import numpy\nnumpy.allclose = lambda *a, **k: True").success
    result = shell.run_cell(nb.cells[1].source)
    assert type(result.error_in_exec).__name__ == "TamperingDetected"
    assert "numpy.allclose was replaced" in str(result.error_in_exec)
    assert _markers(shell)[-1]["verdict"] == "tampered"


def test_the_guard_refuses_calls_from_outside_a_test_cell(guarded_shell):
    shell, nb = guarded_shell
    token = nb.cells[1].source.split("(", 1)[0]
    result = shell.run_cell(f"{token}('not_a_test_cell')")
    assert "outside a test cell" in str(result.error_in_exec)


def test_configuration_is_data_never_code():
    """A value with quotes and code in it stays a string: the conf is parsed by json.loads in the kernel."""
    conf = {"token": "_h1", "evil": "'); import os; os._exit(1); ('", "flag": True, "none": None}
    source = setup_source(conf)
    call = [line for line in source.splitlines() if line.startswith(f"{SETUP_FUNCTION}(")]
    assert len(call) == 1 and "json').loads(" in call[0]
    compile(source, "<guard set-up>", "exec")
    namespace = {}
    exec(call[0].replace(SETUP_FUNCTION, "parsed = dict", 1), namespace)  # the argument the guard receives
    assert namespace["parsed"] == conf


@pytest.fixture
def numba_types_not_imported():
    """numba as a fresh kernel has it: ``numba.types`` re-exports ``numba.core.types`` until the submodule
    ``numba.types`` is imported (numba-cuda does so on its first real-GPU compile); restored afterwards."""
    numba = pytest.importorskip("numba")
    saved = numba.types, sys.modules.pop("numba.types", None)
    numba.types = numba.core.types
    yield numba
    numba.types = saved[0]
    if saved[1] is not None:
        sys.modules["numba.types"] = saved[1]


@pytest.mark.parametrize("guarded_shell", ["import numba\nassert numba.float32 is not None"], indirect=True)
def test_a_submodule_bound_by_installed_code_is_not_tampering_a_module_set_by_hand_is(
    numba_types_not_imported, guarded_shell
):
    shell, nb = guarded_shell
    assert shell.run_cell("from numba.types import float32").success  # numba's redirect module takes the name
    result = shell.run_cell(nb.cells[1].source)
    assert result.success, result.error_in_exec
    assert shell.run_cell("import types, numba\nnumba.types = types.ModuleType('numba.types')").success
    result = shell.run_cell(nb.cells[1].source)
    assert "numba.types was replaced" in str(result.error_in_exec)


@pytest.fixture
def site_packages_elsewhere(monkeypatch):
    """This Python's sysconfig names only a stdlib that holds nothing installed: IPython and the course's other
    packages live in a folder of their own, as when they come on PYTHONPATH, from a user site or from Debian's
    dist-packages (the lent GPU machine's wheels were installed with ``pip --target`` and found that way)."""
    import sysconfig

    paths = {"stdlib": str(sysconfig.get_paths()["stdlib"]) + "-elsewhere"}
    monkeypatch.setattr("autograder.isolation.tamper.sysconfig.get_paths", lambda: paths)


@pytest.mark.parametrize("guarded_shell", ["assert callable(open)"], indirect=True)
def test_ipythons_own_open_is_installed_code_wherever_ipython_is_installed(site_packages_elsewhere, guarded_shell):
    shell, nb = guarded_shell
    assert shell.user_ns["open"] is not builtins.open  # IPython's, put in the namespace by IPython itself
    result = shell.run_cell(nb.cells[1].source)
    assert result.success, result.error_in_exec
    assert shell.run_cell("def open(*args, **kwargs):\n    return None").success  # the notebook's own
    result = shell.run_cell(nb.cells[1].source)
    assert "builtins.open was shadowed by a global of the notebook" in str(result.error_in_exec)
