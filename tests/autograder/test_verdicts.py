"""Recorded results judged outside the kernel (hpml_lab_utils.recorded, autograder.pipeline.verdicts), without a kernel.

The whole path (a lab's hidden tests record, the reference is run in a clean kernel, each student's records are
judged in the worker) is graded for lab01 in tests/autograder/test_grading_labs.py and, against a kernel whose
error reports are switched off, in the adversarial class (``quiet_kernel``).
"""

from __future__ import annotations

import math

from hpml_lab_utils.recorded import RECORD_ENV, RECORD_MIME, Raised, decode, encode, record_call

import nbformat
import numpy as np
import pytest

from autograder.pipeline.verdicts import EXCEPTION_NAME, JudgeRecordedResults, judge, same


def _rec(name, value, rtol=0.0, atol=0.0):
    return {"name": name, "value": encode(value), "rtol": rtol, "atol": atol}


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        3,
        2**80,
        0.1,
        math.inf,
        "text",
        [1, (2.5, "x")],
        {"a": 1, 2: [3]},
        np.arange(6, dtype=np.float32).reshape(2, 3),
        np.array([True, False]),
        np.float64(1.5),
        np.int16(-4),
    ],
)
def test_values_survive_the_trip_as_json(value):
    back = decode(encode(value))
    assert same(decode(encode(value)), back, 0.0, 0.0)


def test_what_cannot_be_recorded_never_equals_anything():
    assert encode(object())["t"] == "unsupported"
    assert encode(np.zeros(3, dtype=np.complex64))["t"] == "unsupported"
    assert not same(decode(encode(object())), decode(encode(object())), 0.0, 0.0)


@pytest.mark.parametrize(
    ("expected", "got", "rtol", "ok"),
    [
        (1.0, 1.0 + 1e-10, 1e-9, True),
        (1.0, 1.0 + 1e-8, 1e-9, False),
        (2.0, 2, 0.0, True),  # an int where a float is expected: the number counts
        (True, 1, 0.0, False),  # a bool is a bool
        (math.nan, math.nan, 0.0, True),
        (math.inf, 1e308, 1.0, False),
        ([1.0, 2.0], (1.0, 2.0), 0.0, False),
        (np.ones(3), np.ones(4), 0.0, False),
        (np.ones(3), np.ones(3, dtype=np.float32) * (1 + 1e-7), 1e-6, True),
        ({"a": 1.0}, {"a": 1.0, "b": 2.0}, 0.0, False),
    ],
)
def test_same_compares_within_the_reference_tolerance(expected, got, rtol, ok):
    assert same(decode(encode(expected)), decode(encode(got)), rtol, 0.0) is ok


def test_a_call_that_must_raise_accepts_a_subclass_and_nothing_else(monkeypatch):
    monkeypatch.setenv(RECORD_ENV, "")  # not recording: record_call only calls
    assert record_call("x", lambda: 1 / 0) is None
    must = decode(encode(Raised(ValueError)))
    assert same(must, decode(encode(Raised(UnicodeDecodeError))), 0, 0)  # a subclass of ValueError
    assert not same(must, decode(encode(Raised(ZeroDivisionError))), 0, 0)
    assert not same(must, decode(encode(0.5)), 0, 0)


def test_judge_names_the_record_and_never_a_value():
    ref = [_rec("a", 1.25), _rec("b", 7.5)]
    assert judge(ref, ref) is None
    message = judge(ref, [_rec("a", 1.25), _rec("b", 7.0)])
    assert message.startswith("b:") and "7.5" not in message and "7.0" not in message
    assert "no result was recorded" in judge(ref, [_rec("a", 1.25)])
    assert "more than" in judge(ref, ref + [_rec("c", 1)])
    assert "unreadable" in judge(ref, [_rec("a", 1.25), {"name": "b", "value": {"t": "array", "dtype": "object"}}])


def _test_cell(grade_id, records, error=False):
    cell = nbformat.v4.new_code_cell(
        "pass", metadata={"nbgrader": {"grade": True, "solution": False, "grade_id": grade_id, "points": 1}}
    )
    cell.outputs = [nbformat.v4.new_output("display_data", data={RECORD_MIME: r}) for r in records]
    if error:
        cell.outputs.append(nbformat.v4.new_output("error", ename="AssertionError", evalue="x", traceback=[]))
    return cell


def test_the_judge_fails_cells_whose_records_differ_and_removes_every_record(tmp_path):
    reference = {"t_ok": [_rec("v", 1.0)], "t_wrong": [_rec("v", 1.0)], "t_missing": [_rec("v", 1.0)]}
    path = tmp_path / "reference.json"
    path.write_text(__import__("json").dumps({"records": reference}))
    nb = nbformat.v4.new_notebook(
        cells=[
            _test_cell("t_ok", [_rec("v", 1.0)]),
            _test_cell("t_wrong", [_rec("v", 2.0)]),
            _test_cell("t_missing", []),
            _test_cell("t_failed", [_rec("v", 1.0)], error=True),
            _test_cell("t_extra", [_rec("v", 1.0)]),  # the reference records nothing there
        ]
    )
    JudgeRecordedResults(reference_file=str(path)).preprocess(nb, {})
    errors = {
        c.metadata["nbgrader"]["grade_id"]: [o.get("ename") for o in c.outputs if o.output_type == "error"]
        for c in nb.cells
    }
    assert errors == {
        "t_ok": [],
        "t_wrong": [EXCEPTION_NAME],
        "t_missing": [EXCEPTION_NAME],
        "t_failed": ["AssertionError"],
        "t_extra": [EXCEPTION_NAME],
    }
    assert RECORD_MIME not in nbformat.writes(nb)


def test_plain_nbgrader_cannot_grade_a_recorded_lab_without_the_reference():
    cell = _test_cell("t", [])
    cell.source = "from hpml_lab_utils.recorded import record\nrecord('v', 1.0)\n"
    with pytest.raises(RuntimeError, match="python -m autograder autograde"):
        JudgeRecordedResults().preprocess(nbformat.v4.new_notebook(cells=[cell]), {})
