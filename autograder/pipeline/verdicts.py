"""Verdicts decided outside the student's kernel: recorded results compared with the reference's, here.

A hidden test that uses :mod:`hpml_lab_utils.recorded` runs the student's code
on its inputs and records what came back; the kernel sends each record as an
output of the test cell. :class:`JudgeRecordedResults` (autograde, right after
the tamper audit) compares, in the grading worker's own process, each test
cell's records with the records the reference solution made on the same
inputs in a clean kernel (:mod:`autograder.grading.reference_results`): the
same names in the same order, each value equal (numbers and arrays within the
tolerance the reference's run stated). A cell whose records differ, are
missing or are extra gets the error output ``ResultMismatch: ...`` (it scores
zero); the message names the record, never a value. The records themselves
are then removed from the notebook, so neither the autograded copy nor the
feedback carries them.

What student code can do to its kernel (replace how it reports cells, forge
outputs, read every executed cell's source) no longer earns a recorded test's
points: a forged record would have to hold the right results.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from hpml_lab_utils.recorded import RECORD_MIME, Pairs, Raised, Unsupported, decode

import numpy as np
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Unicode

from ..isolation.tamper import add_grader_error
from ..labs import is_test_cell
from ..records import NOT_RUN_KEY

EXCEPTION_NAME = "ResultMismatch"
REFERENCE_ENV = "HPML_REFERENCE_RESULTS"  # autograde -> worker; the worker removes it before any kernel starts


def cell_records(cell) -> list[dict]:
    """The records a test cell's outputs carry, in order (each ``{"name", "value", "rtol", "atol"}``)."""
    out = []
    for o in cell.get("outputs", []):
        if o.get("output_type") in ("display_data", "execute_result"):
            data = o.get("data", {}).get(RECORD_MIME)
            if data is not None:
                out.append(data if isinstance(data, dict) else {"name": None})
    return out


def notebook_records(nb) -> dict[str, list[dict]]:
    """Test cell grade id -> its records, for every test cell that recorded something."""
    found = {}
    for cell in nb.cells:
        if cell.get("cell_type") == "code" and is_test_cell(cell):
            records = cell_records(cell)
            if records:
                found[cell.metadata["nbgrader"]["grade_id"]] = records
    return found


def same(expected, got, rtol: float, atol: float) -> bool:
    """Whether a recorded value equals the reference's: numbers and arrays within ``atol + rtol * |expected|``."""
    if isinstance(expected, Raised):
        return isinstance(got, Raised) and expected.names[0] in got.names
    if isinstance(expected, Unsupported) or isinstance(got, (Unsupported, Raised)):
        return False
    if isinstance(expected, bool) or isinstance(got, bool):
        return type(expected) is type(got) and expected == got
    if isinstance(expected, (int, float)) and isinstance(got, (int, float)):
        return _close(float(expected), float(got), rtol, atol)
    if isinstance(expected, np.ndarray):
        return isinstance(got, np.ndarray) and _arrays_close(expected, got, rtol, atol)
    if isinstance(expected, Pairs):
        if not isinstance(got, Pairs) or len(got) != len(expected):
            return False
        rest = list(got)
        for key, value in expected:
            match = next((i for i, (k, _) in enumerate(rest) if same(key, k, 0.0, 0.0)), None)
            if match is None or not same(value, rest.pop(match)[1], rtol, atol):
                return False
        return True
    if isinstance(expected, (list, tuple)):
        return (
            type(got) is type(expected)
            and len(got) == len(expected)
            and all(same(e, g, rtol, atol) for e, g in zip(expected, got))
        )
    return type(got) is type(expected) and got == expected


def _close(e: float, g: float, rtol: float, atol: float) -> bool:
    if math.isnan(e) or math.isnan(g):
        return math.isnan(e) and math.isnan(g)
    if math.isinf(e) or math.isinf(g):
        return e == g
    return abs(g - e) <= atol + rtol * abs(e)


def _arrays_close(e: np.ndarray, g: np.ndarray, rtol: float, atol: float) -> bool:
    if e.shape != g.shape or (e.dtype == np.bool_) != (g.dtype == np.bool_):
        return False
    if e.dtype == np.bool_:
        return bool(np.array_equal(e, g))
    e64, g64 = e.astype(np.float64), g.astype(np.float64)
    both_nan = np.isnan(e64) & np.isnan(g64)
    with np.errstate(invalid="ignore"):
        ok = (g64 == e64) | (np.abs(g64 - e64) <= atol + rtol * np.abs(e64)) | both_nan
    return bool(ok.all())


def judge(expected: list[dict], got: list[dict]) -> str | None:
    """Why a test cell's records do not match the reference's (names only, never values), or None when they do."""
    for i, ref in enumerate(expected):
        if i >= len(got):
            return f"{ref['name']}: no result was recorded (the test stopped before it, or its records were lost)"
        if got[i].get("name") != ref["name"]:
            return f"{ref['name']}: no result was recorded in its place (found {str(got[i].get('name'))[:60]!r})"
        try:
            value = decode(got[i].get("value"))
        except (ValueError, TypeError, KeyError, OverflowError) as exc:
            return f"{ref['name']}: the recorded result is unreadable ({exc})"
        if not same(decode(ref["value"]), value, float(ref.get("rtol", 0.0)), float(ref.get("atol", 0.0))):
            return f"{ref['name']}: the result differs from the reference solution's on the same inputs"
    if len(got) > len(expected):
        return f"results were recorded that the test does not make ({len(got) - len(expected)} more than its {len(expected)})"
    return None


def load_reference(path: str | os.PathLike) -> dict[str, list[dict]]:
    """The reference's records of a lab (grade id -> records), as :func:`notebook_records` gives them."""
    return json.loads(Path(path).read_text(encoding="utf-8"))["records"]


class JudgeRecordedResults(NbGraderPreprocessor):
    """Autograde, after the kernel ran: each test cell's records must equal the reference's, else the cell fails.

    ``reference_file``: the lab's reference records (the grading worker sets it from ``$HPML_REFERENCE_RESULTS``,
    which it removes from its environment before any kernel starts). A lab whose tests record nothing has no
    such file: then only a test cell that records something anyway fails.
    """

    reference_file = Unicode("", help="JSON file of the reference solution's records").tag(config=True)

    def preprocess(self, nb, resources):
        if not self.reference_file and any(
            is_test_cell(c) and "hpml_lab_utils.recorded" in c.get("source", "") for c in nb.cells
        ):
            # plain nbgrader (the Formgrader's Autograde button) has no reference to judge against: points for
            # whatever did not raise would be a lie
            raise RuntimeError(
                "this lab's hidden tests are judged outside the kernel against the reference's results: "
                "grade it with `python -m autograder autograde`"
            )
        reference = load_reference(self.reference_file) if self.reference_file else {}
        for cell in nb.cells:
            if cell.get("cell_type") != "code" or not is_test_cell(cell):
                continue
            grade_id = cell.metadata["nbgrader"]["grade_id"]
            got = cell_records(cell)
            cell.outputs = [
                o for o in cell.get("outputs", []) if RECORD_MIME not in (o.get("data") or {})
            ]  # the student's own values; the feedback has no use for them
            expected = reference.get(grade_id)
            if expected is None and not got:
                continue
            failed = any(o.get("output_type") == "error" for o in cell.outputs) or NOT_RUN_KEY in cell.metadata
            if failed:
                continue  # already zero, with its own message
            problem = judge(expected or [], got)
            if problem:
                add_grader_error(cell, EXCEPTION_NAME, problem)
        return nb, resources
