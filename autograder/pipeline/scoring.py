"""Points follow test results: a test cell scores zero when it has an error output, else full points.

nbgrader scores a test cell zero when its outputs hold an error *or any stderr
stream* (``nbgrader.utils.determine_grade``). A NumPy "Mean of empty slice"
warning, a torch deprecation notice or a "timings are noisy" warning would then
zero a correct answer while every check printed "ok". Here a test cell's score
is decided by its asserts alone: an ``error`` output (a failed assert, an
exception, a timeout, or a verdict the grader added after the kernel ran)
scores zero, stderr text does not.

nbgrader also reads a displayed value (``execute_result``) that comes before any
error as the score ("partial credit": a number is the score, anything else full
points). No test here scores that way, and student code can display a value from
inside a test cell (``sys.displayhook("ok")`` in a function the test calls), so
displayed values are ignored too. The outputs stay in the autograded notebook.

Used by :class:`SaveAutoGradesByTests` (autograde, in ``nbgrader_config.py``)
and :class:`ValidatorByTests` (``python -m autograder validate``).
"""

from __future__ import annotations

import copy

from nbformat import NotebookNode
from nbgrader import utils
from nbgrader.preprocessors import SaveAutoGrades
from nbgrader.validator import Validator


def is_stderr(output: dict) -> bool:
    return output.get("output_type") == "stream" and output.get("name") == "stderr"


def without_stderr(cell: NotebookNode) -> NotebookNode:
    """A copy of ``cell`` whose outputs leave out its stderr streams and displayed values (see the module)."""
    cell = copy.deepcopy(cell)
    if "outputs" in cell:
        cell.outputs = [o for o in cell.outputs if not is_stderr(o) and o.get("output_type") != "execute_result"]
    return cell


def test_cell_score(cell: NotebookNode) -> tuple[float | None, float]:
    """(score, max score) of a grade cell as nbgrader decides it, with stderr and displayed values ignored."""
    return utils.determine_grade(without_stderr(cell))


class SaveAutoGradesByTests(SaveAutoGrades):
    """nbgrader's ``SaveAutoGrades``, scoring each test cell by :func:`test_cell_score`."""

    def _add_score(self, cell: NotebookNode, resources: dict) -> None:
        super()._add_score(without_stderr(cell), resources)


class ValidatorByTests(Validator):
    """nbgrader's ``Validator`` with the same rule: a grade cell passes or fails by its asserts alone."""

    def _preprocess(self, nb: NotebookNode) -> NotebookNode:
        nb = super()._preprocess(nb)  # executes the notebook; pass and fail are read from it afterwards
        nb.cells = [without_stderr(c) if utils.is_grade(c) else c for c in nb.cells]
        return nb
