"""Tamper detection, restored test cells and leak-free feedback.

Two layers:

- kernel level (fast): a small notebook goes through ``InsertTamperGuards``,
  a real kernel (nbclient) and ``AuditTamperGuards``; each monkeypatch that
  would fool the test is detected and the test cell scores zero with a
  ``TamperingDetected`` message naming what was replaced;
- course level: a toy course in ``tmp_path`` through real ``nbgrader
  generate_assignment``, ``autograde`` and ``generate_feedback`` with the
  course's preprocessors: deleted, edited and re-labelled test cells, changed
  points, a tampering student, and feedback that quotes no hidden test line.
"""

from __future__ import annotations

import asyncio
import shutil
import textwrap
from html import escape as html_escape
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from nbgrader.utils import determine_grade
from traitlets.config import Config

from autograder.isolation.tamper import (
    EXCEPTION_NAME,
    AuditTamperGuards,
    InsertTamperGuards,
    find_tampering,
    free_names,
)
from autograder.paths import RELEASE_DIRNAME, CoursePaths
from autograder.pipeline.edited_cells import cell_changes, release_cells
from autograder.pipeline.nbgrader_app import load_config

ROOT = Path(__file__).resolve().parents[2]
KERNEL = "python3"


def _meta(grade_id, *, grade=False, solution=False, locked=False, points=0):
    nbg = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": locked,
        "solution": solution,
        "schema_version": 3,
        "task": False,
    }
    if grade:
        nbg["points"] = points
    return {"nbgrader": nbg}


def answer_cell(grade_id, source):
    return new_code_cell(source, metadata=_meta(grade_id, solution=True))


def test_cell(grade_id, source, points=1):
    return new_code_cell(source, metadata=_meta(grade_id, grade=True, locked=True, points=points))


test_cell.__test__ = False  # a helper, not a pytest test


# --------------------------------------------------------------------------- kernel level

# Each test cell would pass for the wrong answer f(x) = 0 once its dependency is patched.
TESTS = {
    "t_allclose": "import numpy as np\nassert np.allclose(f(2), 4)\n",
    "t_testing": "import numpy as np\nnp.testing.assert_allclose(f(2), 4)\n",
    "t_abs": "assert abs(f(-2) - 4) < 1e-9, 'f(-2) is wrong'\n",
    "t_check": "from hpml_lab_utils.checks import check_close\ncheck_close('f(3)', f(3), 9)\n",
}
TORCH_PATCH = "import torch\ntorch.allclose = lambda *a, **k: True\n"
TORCH_TEST = {"t_torch": "import torch\nassert torch.allclose(torch.tensor(float(f(2))), torch.tensor(4.0))\n"}

HONEST = textwrap.dedent("""\
    import numpy as np
    from numpy import allclose
    from numpy.testing import assert_allclose
    import hpml_lab_utils.checks as hc

    def check(x):  # the student's own helper called check
        return allclose(x, x)

    def f(x):
        return x * x
    """)
WRONG = "def f(x):\n    return 0\n"
# honest things that register IPython hooks of their own: inline plots (post_execute), autoreload (pre_run_cell)
HONEST_EXTRAS = textwrap.dedent("""\
    %matplotlib inline
    %load_ext autoreload
    %autoreload 2
    import matplotlib.pyplot as plt
    plt.plot([1, 2, 3])
    plt.show()
    """)

# name -> (student code, the test cell it must fool, what the message must name)
TAMPERS = {
    "numpy.allclose": ("import numpy\nnumpy.allclose = lambda *a, **k: True\n", "t_allclose", "numpy.allclose"),
    "numpy.testing.assert_allclose": (
        "import numpy.testing\nnumpy.testing.assert_allclose = lambda *a, **k: None\n",
        "t_testing",
        "numpy.testing.assert_allclose",
    ),
    "builtins.abs": ("import builtins\nbuiltins.abs = lambda x: 0\n", "t_abs", "builtins.abs"),
    "global abs": ("abs = lambda x: 0\n", "t_abs", "builtins.abs was shadowed"),
    "fake numpy module": (
        "import sys, types\n_fake = types.ModuleType('numpy')\n_fake.allclose = lambda *a, **k: True\n"
        "sys.modules['numpy'] = _fake\n",
        "t_allclose",
        "sys.modules['numpy'] was replaced",
    ),
    "check_close": (
        "import hpml_lab_utils.checks\nhpml_lab_utils.checks.check_close = lambda *a, **k: None\n",
        "t_check",
        "hpml_lab_utils.checks.check_close",
    ),
    "check_close defaults": (
        "import hpml_lab_utils.checks as _c\n_c.check_close.__defaults__ = (1e9, 1e9)\n",
        "t_check",
        "hpml_lab_utils.checks.check_close was modified",
    ),
    "input transformer drops asserts": (
        "def _drop(lines):\n    return [l for l in lines if not l.lstrip().startswith('assert')]\n"
        "get_ipython().input_transformers_cleanup.append(_drop)\n",
        "t_abs",
        "IPython input transformers",
    ),
    "input transformer drops every line": (
        "def _drop(lines):\n    return ['pass\\n']\nget_ipython().input_transformers_cleanup.append(_drop)\n",
        "t_abs",
        "the tamper guard did not run",
    ),
    "ast transformer": (
        "import ast\nclass _Strip(ast.NodeTransformer):\n    def visit_Assert(self, node):\n        return None\n"
        "get_ipython().ast_transformers.append(_Strip())\n",
        "t_abs",
        "IPython AST transformers",
    ),
    "pre_run_cell hook": (
        "get_ipython().events.register('pre_run_cell', lambda info: None)\n",
        "t_abs",
        "pre_run_cell callback",
    ),
    "settrace": ("import sys\nsys.settrace(lambda *a: None)\n", "t_abs", "sys.settrace"),
    "silenced traceback": (
        "get_ipython().showtraceback = lambda *a, **k: None\nget_ipython()._showtraceback = lambda *a, **k: None\n",
        "t_abs",
        "showtraceback",
    ),
}


async def _run_guarded_async(student: str, tests: dict[str, str], guard: bool = True):
    cells = [new_markdown_cell("toy"), answer_cell("answer", student)]
    cells += [test_cell(gid, src) for gid, src in tests.items()]
    nb = new_notebook(
        cells=cells, metadata={"kernelspec": {"name": KERNEL, "display_name": "Python 3", "language": "python"}}
    )
    resources = {}
    if guard:
        nb, resources = InsertTamperGuards().preprocess(nb, resources)
    await NotebookClient(
        nb, kernel_name=KERNEL, allow_errors=True, timeout=60, resources={"metadata": {"path": str(ROOT)}}
    ).async_execute()
    if guard:
        nb, resources = AuditTamperGuards().preprocess(nb, resources)
    scores = {
        c.metadata["nbgrader"]["grade_id"]: determine_grade(c)[0]
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
    }
    return nb, scores


def run_guarded(student: str, tests: dict[str, str], guard: bool = True):
    """Student cell + test cells through the guard preprocessors and a real kernel; (nb, {grade_id: score})."""
    return asyncio.run(_run_guarded_async(student, tests, guard))


def run_many(jobs: dict[str, tuple], concurrency: int = 3) -> dict[str, tuple]:
    """Several :func:`run_guarded` at once (kernel start-up dominates; the kernels wait on I/O)."""

    async def main():
        gate = asyncio.Semaphore(concurrency)

        async def one(args):
            async with gate:
                return await _run_guarded_async(*args)

        results = await asyncio.gather(*(one(args) for args in jobs.values()))
        return dict(zip(jobs, results))

    return asyncio.run(main())


@pytest.fixture(scope="module")
def tamper_runs():
    jobs = {name: (WRONG + code, {target: TESTS[target]}) for name, (code, target, _) in TAMPERS.items()}
    jobs["torch.allclose"] = (WRONG + TORCH_PATCH, TORCH_TEST)
    # the tests of this notebook never mention torch: not snapshotted, caught by provenance alone
    jobs["torch.allclose unwatched"] = (WRONG + TORCH_PATCH, {"t_abs": TESTS["t_abs"]})
    jobs["honest"] = (HONEST, TESTS)
    jobs["honest extras"] = (HONEST + HONEST_EXTRAS, TESTS)
    jobs["wrong"] = (WRONG, TESTS)
    jobs["control"] = (
        WRONG + TAMPERS["numpy.allclose"][0] + TAMPERS["input transformer drops asserts"][0],
        {"t_allclose": TESTS["t_allclose"], "t_abs": TESTS["t_abs"]},
        False,
    )
    return run_many(jobs)


def _errors(nb, grade_id):
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    return [f"{o['ename']}: {o['evalue']}" for o in cell.outputs if o.output_type == "error"]


@pytest.mark.slow
def test_honest_notebook_passes_with_no_tampering_and_no_guard_trace(tamper_runs):
    nb, scores = tamper_runs["honest"]
    assert scores == dict.fromkeys(TESTS, 1.0), [(g, _errors(nb, g)) for g in TESTS]
    assert find_tampering(nb) == []
    assert [c.source for c in nb.cells if c.cell_type == "code"][1:] == list(TESTS.values())  # guard lines gone
    text = nbformat.writes(nb)
    assert "tamper guard" not in text and "vnd.hpml.guard" not in text


@pytest.mark.slow
def test_inline_plots_and_autoreload_are_not_tampering(tamper_runs):
    nb, scores = tamper_runs["honest extras"]
    assert scores == dict.fromkeys(TESTS, 1.0), [(g, _errors(nb, g)) for g in TESTS]
    assert find_tampering(nb) == []


@pytest.mark.slow
def test_wrong_answer_fails_normally_without_tampering(tamper_runs):
    nb, scores = tamper_runs["wrong"]
    assert set(scores.values()) == {0.0}
    assert find_tampering(nb) == []


@pytest.mark.slow
def test_the_patches_do_fool_an_unguarded_grader(tamper_runs):
    # the control: without the guard these submissions earn points they do not deserve
    _, scores = tamper_runs["control"]
    assert scores == {"t_allclose": 1.0, "t_abs": 1.0}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(TAMPERS))
def test_each_monkeypatch_is_detected_and_scores_zero(tamper_runs, name):
    _, target, message = TAMPERS[name]
    nb, scores = tamper_runs[name]
    assert scores[target] == 0.0
    errors = _errors(nb, target)
    assert any(e.startswith(EXCEPTION_NAME + ":") and message in e for e in errors), errors
    found = find_tampering(nb)
    assert found and found[0].startswith(f"{target}: ") and message in found[0]


@pytest.mark.slow
def test_torch_allclose_is_detected(tamper_runs):
    nb, scores = tamper_runs["torch.allclose"]
    assert scores["t_torch"] == 0.0
    assert any("torch.allclose was replaced" in e for e in _errors(nb, "t_torch"))
    nb, scores = tamper_runs["torch.allclose unwatched"]
    assert scores["t_abs"] == 0.0
    assert any("torch.allclose was replaced" in e for e in _errors(nb, "t_abs")), _errors(nb, "t_abs")


def test_free_names_are_only_the_unbound_ones():
    src = "import numpy as np\nfor _i in range(3):\n    assert abs(f(_i)) >= 0\nx = len([1])\n"
    assert free_names(src) == ["abs", "f", "len", "range"]


def _seconds_for_tests(guard: bool, n: int = 25) -> float:
    """Kernel-side wall time of ``n`` small test cells (from the end of the answer cell to the last test)."""
    tests = {f"t{i}": "assert abs(f(2) - 4) < 1e-9\n" for i in range(n)}
    tests["t_time"] = "import builtins, time\nprint(time.perf_counter() - builtins._t0)\n"
    nb, scores = run_guarded(HONEST + "import time, builtins\nbuiltins._t0 = time.perf_counter()\n", tests, guard)
    assert set(scores.values()) == {1.0}
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "t_time")
    return float(cell.outputs[0]["text"]) / (n + 1)


@pytest.mark.slow
def test_guard_overhead_per_test_cell_is_small():
    plain, guarded = _seconds_for_tests(False), _seconds_for_tests(True)
    print(f"per test cell: {plain * 1e3:.2f} ms unguarded, {guarded * 1e3:.2f} ms guarded (guard line and probe)")
    # generous for a shared 2-core machine: the guard's check costs about 1 ms, the probe after each test cell
    # (one more cell, a syntax error the kernel must report) about 15 ms (see tamper.py's docstring)
    assert guarded - plain < 0.05, f"the guard adds {(guarded - plain) * 1e3:.1f} ms per test cell"


# --------------------------------------------------------------------------- course level (real nbgrader)

HIDDEN_SQUARE = "assert square(-4) == 16, 'square is wrong for a negative number'"
HIDDEN_SQUARE_2 = "_hidden_reference_table = [k * k for k in range(-50, 50, 7)]"
HIDDEN_CUBE = "assert cube(-3) == -27, 'cube is wrong for a negative number'"

SOURCE_CELLS = [
    new_markdown_cell("# Toy lab"),
    answer_cell("square_answer", "def square(x):\n    ### BEGIN SOLUTION\n    return x * x\n    ### END SOLUTION\n"),
    test_cell(
        "test_square",
        "assert square(3) == 9, 'square(3) should be 9'\n### BEGIN HIDDEN TESTS\n"
        f"{HIDDEN_SQUARE}\n{HIDDEN_SQUARE_2}\n"
        "assert all(square(k) == v for k, v in zip(range(-50, 50, 7), _hidden_reference_table))\n"
        "### END HIDDEN TESTS\n",
        points=2,
    ),
    answer_cell("cube_answer", "def cube(x):\n    ### BEGIN SOLUTION\n    return x ** 3\n    ### END SOLUTION\n"),
    test_cell(
        "test_cube",
        "import numpy as np\nassert np.allclose(cube(2), 8), 'cube(2) should be 8'\n"
        f"### BEGIN HIDDEN TESTS\n{HIDDEN_CUBE}\n### END HIDDEN TESTS\n",
        points=3,
    ),
]

LEAKER = textwrap.dedent("""\
    import sys
    def _leak(info):
        print(info.raw_cell)
        print(repr(info.raw_cell))
    get_ipython().events.register('pre_run_cell', _leak)
    """)


def _students(release: nbformat.NotebookNode) -> dict[str, nbformat.NotebookNode]:
    def copy():
        return nbformat.from_dict(nbformat.reads(nbformat.writes(release), as_version=4))

    def solve(nb, square="x * x", cube="x ** 3"):
        for cell in nb.cells:
            gid = cell.metadata.get("nbgrader", {}).get("grade_id")
            if gid == "square_answer":
                cell.source = f"def square(x):\n    return {square}\n"
            elif gid == "cube_answer":
                cell.source = f"def cube(x):\n    return {cube}\n"
        return nb

    def cell(nb, gid):
        return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == gid)

    out = {"honest": solve(copy())}
    # edited test_square and inflated points on test_cube; both answers wrong
    nb = solve(copy(), square="0", cube="0")
    cell(nb, "test_square").source = "pass\n"
    cell(nb, "test_cube").metadata["nbgrader"]["points"] = 100
    out["edited_and_points"] = nb
    # deleted test_square and a renamed (and emptied) test_cube; both answers wrong
    nb = solve(copy(), square="0", cube="0")
    nb.cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") != "test_square"]
    renamed = cell(nb, "test_cube")
    renamed.metadata["nbgrader"]["grade_id"] = "test_cube_renamed"
    renamed.source = "pass\n"
    out["deleted_and_renamed"] = nb
    # flipped flags on two edited test cells (nbgrader alone fails the submission: "Inconsistent checksums")
    nb = solve(copy(), square="0", cube="0")
    cell(nb, "test_square").metadata["nbgrader"]["grade"] = False
    cell(nb, "test_square").source = "pass\n"
    cell(nb, "test_cube").metadata["nbgrader"].update(solution=True, locked=False)
    cell(nb, "test_cube").source = "pass\n"
    out["flipped_flags"] = nb
    # patches numpy.allclose after test_square, and leaks every later cell's source through a pre_run_cell hook
    nb = solve(copy(), cube="0")
    cell(nb, "cube_answer").source += "import numpy\nnumpy.allclose = lambda *a, **k: True\n" + LEAKER
    out["tamperer"] = nb
    # square wrong for negative numbers (fails a hidden test); a last cell prints the input history
    nb = solve(copy(), square="x * x if x >= 0 else 0")
    nb.cells.append(new_code_cell("print(In)\nprint('\\n'.join(In))\nraise ValueError(In[-2])\n"))
    out["wrong_and_leaky"] = nb
    return out


def _course_paths(course: Path) -> CoursePaths:
    return CoursePaths(root=course, work=course / "work", release=course / RELEASE_DIRNAME)


def _plain_config(paths: CoursePaths) -> Config:
    """nbgrader's own pipelines on the course folders: the baseline the course configuration improves on."""
    cfg = load_config(paths)
    for section, key in [
        ("Autograde", "sanitize_preprocessors"),
        ("Autograde", "autograde_preprocessors"),
        ("GenerateFeedback", "preprocessors"),
    ]:
        cfg[section].pop(key)
    return cfg


def _nbgrader(cfg: Config, command: str, student: str = "*") -> dict:
    """One nbgrader step in this process through its API (the CLI spends ~10 s importing, per call)."""
    from nbgrader.apps import NbGraderAPI

    api = NbGraderAPI(config=cfg)
    if command == "generate_assignment":
        return api.generate_assignment("toy", force=True)
    return getattr(api, command)("toy", student, force=True)


def _build_course(paths: CoursePaths) -> dict[str, nbformat.NotebookNode]:
    (paths.source / "toy").mkdir(parents=True)
    paths.work.mkdir()  # sqlite does not create the gradebook's folder
    src = new_notebook(
        cells=SOURCE_CELLS, metadata={"kernelspec": {"name": KERNEL, "display_name": "Python 3", "language": "python"}}
    )
    nbformat.write(src, paths.source / "toy" / "toy.ipynb")
    r = _nbgrader(load_config(paths), "generate_assignment")
    assert r["success"], r.get("error")
    release = nbformat.read(paths.release / "toy" / "toy.ipynb", as_version=4)
    students = _students(release)
    for name, nb in students.items():
        (paths.submitted / name / "toy").mkdir(parents=True)
        nbformat.write(nb, paths.submitted / name / "toy" / "toy.ipynb")
    return students


def _scores(paths: CoursePaths, student: str) -> dict[str, float]:
    from nbgrader.api import Gradebook

    with Gradebook(paths.db_url) as gb:
        sub = gb.find_submission_notebook("toy", "toy", student)
        return {g.name: g.score for g in sub.grades if g.name.startswith("test_")}


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    paths = _course_paths(tmp_path_factory.mktemp("toy_course"))
    students = _build_course(paths)
    cfg = load_config(paths)  # the course configuration, as the autograder loads it
    r = _nbgrader(cfg, "autograde")
    f = _nbgrader(cfg, "generate_feedback")
    return paths, students, r, f


def _autograded(paths: CoursePaths, student: str) -> nbformat.NotebookNode:
    return nbformat.read(paths.autograded / student / "toy" / "toy.ipynb", as_version=4)


@pytest.mark.slow
def test_course_honest_and_wrong_students_are_graded_normally(course):
    course, _, r, _ = course
    assert _scores(course, "honest") == {"test_square": 2.0, "test_cube": 3.0}, r.get("error")
    assert _scores(course, "wrong_and_leaky") == {"test_square": 0.0, "test_cube": 3.0}
    assert find_tampering(_autograded(course, "honest")) == []
    assert find_tampering(_autograded(course, "wrong_and_leaky")) == []


@pytest.mark.slow
def test_course_tamperer_scores_zero_after_the_patch_and_is_reported(course):
    course, _, _, _ = course
    # the patch comes after test_square: that test was honestly passed; test_cube was not
    assert _scores(course, "tamperer") == {"test_square": 2.0, "test_cube": 0.0}
    found = find_tampering(_autograded(course, "tamperer"))
    assert len(found) == 1 and found[0].startswith("test_cube: numpy.allclose was replaced"), found
    assert "pre_run_cell callback was registered" in found[0]


@pytest.mark.slow
@pytest.mark.parametrize("student", ["edited_and_points", "deleted_and_renamed", "flipped_flags"])
def test_course_changed_test_cells_are_restored_and_never_trusted(course, student):
    course, _, _, _ = course
    # both answers are wrong: the restored test cells must catch them, for their original points
    assert _scores(course, student) == {"test_square": 0.0, "test_cube": 0.0}
    graded = _autograded(course, student)
    tests = {
        c.metadata["nbgrader"]["grade_id"]: c
        for c in graded.cells
        if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("test_")
    }
    assert sorted(tests) == ["test_cube", "test_square"]
    assert "np.allclose(cube(2), 8)" in tests["test_cube"].source
    assert "square(3) == 9" in tests["test_square"].source
    assert float(tests["test_cube"].metadata["nbgrader"]["points"]) == 3.0
    assert float(tests["test_square"].metadata["nbgrader"]["points"]) == 2.0
    from nbgrader.api import Gradebook

    with Gradebook(course.db_url) as gb:
        assert gb.find_submission_notebook("toy", "toy", student).max_score == 5.0


@pytest.mark.slow
def test_cell_changes_lists_what_each_submission_changed(course):
    course, students, _, _ = course
    source = release_cells(course.release / "toy" / "toy.ipynb")  # what the worker compares with
    changes = {name: cell_changes(nb, source) for name, nb in students.items()}
    assert changes["honest"] == [] and changes["tamperer"] == [] and changes["wrong_and_leaky"] == []
    assert changes["edited_and_points"] == [
        "cell test_square: locked cell edited (restored from the source)",
        "cell test_cube: points changed from 3 to 100",
    ]
    assert changes["flipped_flags"] == [
        "cell test_square: locked cell edited (restored from the source)",
        "cell test_square: grade flag changed to False",
        "cell test_cube: locked cell edited (restored from the source)",
        "cell test_cube: locked flag changed to False",
        "cell test_cube: solution flag changed to True",
    ]
    assert changes["deleted_and_renamed"] == [
        "cell 'test_cube_renamed': grade id not in the source notebook (renamed or invented)",
        "cell test_square: graded cell deleted (restored from the source)",
        "cell test_cube: graded cell deleted (restored from the source)",
    ]


@pytest.mark.slow
def test_feedback_shows_points_and_messages_but_no_hidden_code(course):
    course, _, _, f = course
    assert f["success"], f.get("error")
    for student in ("tamperer", "wrong_and_leaky"):
        html = (course.feedback / student / "toy" / "toy.html").read_text()
        for hidden in (HIDDEN_SQUARE, HIDDEN_SQUARE_2, HIDDEN_CUBE):
            assert hidden not in html and html_escape(hidden) not in html
        assert "square(-4) == 16" not in html and "range(-50, 50, 7)" not in html and "cube(-3)" not in html
        assert "BEGIN HIDDEN TESTS" not in html and "Traceback (most recent" not in html and "Cell In[" not in html
        assert "tamper guard" not in html and "_hpml_guard" not in html and "vnd.hpml" not in html
    # what it must show: the failure message of the hidden test, the points, the tamper finding
    wrong = (course.feedback / "wrong_and_leaky" / "toy" / "toy.html").read_text()
    assert "square is wrong for a negative number" in wrong
    assert "3.0 / 5.0" in wrong and "0.0 / 2.0" in wrong
    tamperer = (course.feedback / "tamperer" / "toy" / "toy.html").read_text()
    assert "TamperingDetected: numpy.allclose was replaced" in tamperer


@pytest.mark.slow
def test_plain_nbgrader_crashes_on_a_changed_grade_id(course, tmp_path):
    """nbgrader 0.9.6 alone, on the renamed test cell: why ``DropUnknownGradeIds`` exists.

    OverwriteCells drops the unknown ``grade_id`` but keeps ``grade: true``; with
    ``add_missing_cells`` it then fails with ``KeyError: 'grade_id'`` and the whole
    submission is not graded (it would export as 0.0, like a real zero).
    """
    course, _, _, _ = course
    plain = _course_paths(tmp_path / "plain")
    shutil.copytree(course.root, plain.root, ignore=shutil.ignore_patterns("autograded", "feedback"))
    r = _nbgrader(_plain_config(plain), "autograde", "deleted_and_renamed")
    assert not r["success"]
    assert "does not exist in the database" in r["log"] and "KeyError: 'grade_id'" in r["log"] + r.get("error", "")


def test_redaction_catches_respaced_escaped_and_guard_quotes():
    """RedactTracebacks on outputs of a student cell: re-spaced, repr-escaped and guard quotes, error messages."""
    from nbformat.v4 import new_output

    from autograder.pipeline.preprocessors import REDACTED, RedactTracebacks

    hidden = "assert   cube(-3) == -27,  'cube is wrong'"
    test = test_cell("test_cube", f"assert cube(2) == 8\n### BEGIN HIDDEN TESTS\n{hidden}\n### END HIDDEN TESTS\n")
    student = answer_cell("cube_answer", "def cube(x):\n    return 0\n")
    student.outputs = [
        new_output("stream", name="stdout", text="ok line\n    assert cube(-3) == -27, 'cube is wrong'\n"),
        new_output(
            "execute_result",
            data={"text/plain": repr(["x", "assert cube(-3) == -27, 'cube is wrong'"])},
            execution_count=1,
        ),
        new_output(
            "stream",
            name="stdout",
            text="### BEGIN HIDDEN TESTS\n_hxyz('t', ())  # tamper guard, added by the autograder\n",
        ),
        new_output(
            "error",
            ename="ValueError",
            evalue="assert cube(-3) == -27, 'cube is wrong'",
            traceback=["Traceback (most recent call last)", "ValueError: assert cube(-3) == -27, 'cube is wrong'"],
        ),
    ]
    nb, _ = RedactTracebacks().preprocess(new_notebook(cells=[student, test]), {})
    outs = nb.cells[0].outputs
    assert outs[0].text == "ok line\n" + REDACTED + "\n"
    assert outs[1].data["text/plain"] == REDACTED
    assert outs[2].text == REDACTED + "\n" + REDACTED + "\n"
    assert outs[3].evalue == REDACTED and outs[3].traceback == [f"ValueError: {REDACTED}"]
