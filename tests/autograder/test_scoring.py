"""How a test cell's outputs become its points (autograder/pipeline/scoring.py): errors only."""

from __future__ import annotations

from nbformat.v4 import new_code_cell, new_output

from autograder.pipeline import scoring


def _test_cell(*outputs):
    cell = new_code_cell("check()")
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "locked": True, "grade_id": "t", "points": 3}
    cell.outputs = list(outputs)
    return cell


ERROR = new_output("error", ename="ResultMismatch", evalue="x: differs", traceback=[])
STDERR = new_output("stream", name="stderr", text="UserWarning: timings are noisy\n")


def test_an_error_costs_the_points_and_stderr_does_not():
    assert scoring.test_cell_score(_test_cell()) == (3.0, 3.0)
    assert scoring.test_cell_score(_test_cell(STDERR)) == (3.0, 3.0)
    assert scoring.test_cell_score(_test_cell(STDERR, ERROR)) == (0, 3.0)


def test_a_displayed_value_is_not_a_score():
    """nbgrader takes a displayed value before any error as the score; student code can display one from a test
    cell (sys.displayhook in a function the test calls), and a test's last expression displays its value."""
    for value in ("'ok'", "3.0", "{}"):
        shown = new_output("execute_result", data={"text/plain": value}, execution_count=1)
        assert scoring.test_cell_score(_test_cell(shown, ERROR)) == (0, 3.0), value
        assert scoring.test_cell_score(_test_cell(shown)) == (3.0, 3.0), value
    partial = new_output("execute_result", data={"text/plain": "0.5"}, execution_count=1)
    assert scoring.test_cell_score(_test_cell(partial)) == (3.0, 3.0)  # no partial credit
