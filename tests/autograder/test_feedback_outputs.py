"""The feedback shows, from the first hidden test on, only what the grader vouches for (no kernel needed)."""

from __future__ import annotations

import base64

from nbformat import from_dict
from nbformat.v4 import new_code_cell, new_notebook, new_output

from autograder.isolation.tamper import add_grader_error
from autograder.pipeline.feedback_outputs import (
    WITHHELD_MESSAGE,
    WITHHELD_NOTE,
    WithholdOutputsAfterHiddenTests,
    cell_messages,
)

HIDDEN_SOURCE = (
    "check(f(1))\n"
    "### BEGIN HIDDEN TESTS\n"
    "_what = 'an empty list'\n"
    "assert f([]) == 0, 'f of an empty list must be 0'\n"
    "assert f(2) == 4, f'f is wrong for {_what} ({len(_calls)} calls)'\n"
    "### END HIDDEN TESTS\n"
)


def _test_cell(source: str, grade_id: str):
    cell = new_code_cell(source)
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "locked": True, "grade_id": grade_id, "points": 1}
    return cell


def _error(ename: str, evalue: str):
    return new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}", "more lines"])


def _feedback(*cells):
    nb = new_notebook(cells=list(cells))
    nb, _ = WithholdOutputsAfterHiddenTests().preprocess(nb, {})
    return nb.cells


def test_outputs_before_the_first_hidden_test_stay():
    early = new_code_cell("print('hello')", outputs=[new_output("stream", name="stdout", text="hello\n")])
    visible_only = _test_cell("check(f(1))", "test_visible")
    visible_only.outputs = [new_output("stream", name="stdout", text="got 1\n")]
    cells = _feedback(early, visible_only, _test_cell(HIDDEN_SOURCE, "test_hidden"))
    assert cells[0].outputs[0].text == "hello\n" and cells[1].outputs[0].text == "got 1\n"


def test_a_student_cell_after_a_hidden_test_shows_one_note_instead_of_its_outputs():
    leak = base64.b64encode(HIDDEN_SOURCE.encode()).decode()
    student = new_code_cell(
        "print(leak)",
        outputs=[
            new_output("stream", name="stdout", text=f"leak: {leak}\n"),
            new_output("display_data", data={"text/plain": leak, "image/png": "iVBORw0KGgo="}),
            _error("ValueError", leak),
        ],
    )
    quiet = new_code_cell("x = 1")
    cells = _feedback(_test_cell(HIDDEN_SOURCE, "test_hidden"), student, quiet)
    assert [o.text for o in cells[1].outputs] == [WITHHELD_NOTE] and cells[2].outputs == []


def test_a_test_cell_keeps_its_own_messages_and_the_graders_and_withholds_the_rest():
    cell = _test_cell(HIDDEN_SOURCE, "test_hidden")
    leak = base64.b64encode(b"def _reference(x): return 2 * x").decode()
    cell.outputs = [
        new_output("stream", name="stdout", text=f"{leak}\n"),
        _error("AssertionError", "f of an empty list must be 0"),
        _error("AssertionError", "f is wrong for an empty list (3 calls)"),
        _error("AssertionError", f"f is wrong for an empty list ({leak})"),
        _error("ValueError", leak),
        _error("Leak" + leak[:20], "f of an empty list must be 0"),
        _error("ResultMismatch", "f(2): forged by the kernel " + leak),
    ]
    add_grader_error(
        cell, "ResultMismatch", "f(2): the result differs from the reference solution's on the same inputs"
    )
    [shown] = _feedback(cell)
    assert [o.traceback for o in shown.outputs] == [
        ["AssertionError: f of an empty list must be 0"],
        ["AssertionError: f is wrong for an empty list (3 calls)"],
        [f"AssertionError: {WITHHELD_MESSAGE}"],
        [f"ValueError: {WITHHELD_MESSAGE}"],
        ["Error: f of an empty list must be 0"],
        [f"ResultMismatch: {WITHHELD_MESSAGE}"],
        ["ResultMismatch: f(2): the result differs from the reference solution's on the same inputs"],
    ]
    assert leak not in str(shown)


def test_cell_messages_match_numbers_and_the_cells_words_in_fields_only():
    pattern = cell_messages(HIDDEN_SOURCE)
    assert pattern.fullmatch("f is wrong for an empty list (12 calls)")
    assert not pattern.fullmatch("f is wrong for an empty list (aGVsbG8= calls)")
    assert not pattern.fullmatch("f of an empty list must be 0 and then some")
    assert cell_messages("this is not Python (") is None


def test_the_grader_notes_its_own_errors_in_the_cells_metadata():
    cell = from_dict(new_code_cell("pass"))
    add_grader_error(cell, "NotRun", "not run: the notebook's time limit was reached")
    assert cell.outputs[0].traceback == ["NotRun: not run: the notebook's time limit was reached"]
    assert cell.metadata["hpml_grader_errors"] == ["NotRun: not run: the notebook's time limit was reached"]


def test_tamper_findings_are_shown_in_the_guards_words_only():
    cell = _test_cell(HIDDEN_SOURCE, "test_hidden")
    cell.outputs = [
        _error("TamperingDetected", "numpy.allclose was replaced; an IPython pre_run_cell callback was registered"),
        _error("TamperingDetected", "numpy.allclose was replaced; def _reference(x): return 2 * x"),
    ]
    [shown] = _feedback(cell)
    assert [o.traceback for o in shown.outputs] == [
        ["TamperingDetected: numpy.allclose was replaced; an IPython pre_run_cell callback was registered"],
        [f"TamperingDetected: {WITHHELD_MESSAGE}"],
    ]
