"""The grader's probes: cells of its own, run after each test cell, that must fail (the kernel reports errors).

A student's code runs in the kernel that reports on every cell, so it can
change those reports: drop error messages, turn a failed reply into ``ok``.
:class:`~autograder.isolation.tamper.InsertTamperGuards` puts a probe after
each guarded test cell: a line that is a syntax error and quotes a random
name. :func:`distrust_after_silent_probe` (run by the tamper audit) finds the
first probe whose error did not come back and takes every test cell from the
one before it on as untrusted. Code that tells a probe from a test cell by its
source can still let the probes' errors through: recorded results
(:mod:`autograder.pipeline.verdicts`) are what does not depend on the kernel.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from nbformat.notebooknode import NotebookNode, from_dict

from ..labs import is_test_cell
from ..records import NOT_RUN_KEY

PROBE_KEY = "hpml_probe"  # cell metadata of a probe: the name its error must quote


def probe_cell(message: str, nbformat_minor: tuple, mark: str) -> NotebookNode:
    """A cell of the grader's that must fail with a ``SyntaxError`` quoting ``message`` (the kernel reports errors).

    A syntax error is the cheapest error a kernel reports (about 5 ms on top of a cell's round trip, against
    about 25 ms for a raised exception's traceback); its source carries ``mark`` (the guard line's), so that any
    output quoting it is redacted like a guard line."""
    cell = from_dict(
        {
            "cell_type": "code",
            "execution_count": None,
            "outputs": [],
            "source": f"{message} )  {mark}\n",
            "metadata": {"editable": False, "deletable": False, PROBE_KEY: message},
        }
    )
    if nbformat_minor >= (4, 5):
        cell["id"] = "hpml-probe-" + secrets.token_hex(4)
    return cell


def distrust_after_silent_probe(nb, add_error: Callable[[NotebookNode, str], None]) -> None:
    """From the first probe whose error did not come back: the test cell before it and every later test cell that
    shows no error get ``add_error(cell, message)`` (the kernel no longer reports failures)."""
    last_test, broken_after = None, None
    for cell in nb.cells:
        meta = cell.get("metadata", {})
        if PROBE_KEY in meta and broken_after is None and NOT_RUN_KEY not in meta:
            came_back = any(
                o.get("output_type") == "error"
                and o.get("ename") == "SyntaxError"
                and any(meta.get(PROBE_KEY, "?") in line for line in o.get("traceback", []))
                for o in cell.get("outputs", [])
            )
            if not came_back:
                broken_after = last_test
        elif cell.get("cell_type") == "code" and is_test_cell(cell):
            last_test = cell
    if broken_after is None:
        return
    flagged = False
    for cell in nb.cells:
        flagged = flagged or cell is broken_after
        if flagged and cell.get("cell_type") == "code" and is_test_cell(cell) and NOT_RUN_KEY not in cell.metadata:
            if not any(o.get("output_type") == "error" for o in cell.get("outputs", [])):
                add_error(
                    cell,
                    "the kernel's reports were changed: an error the grader raised itself after "
                    f"{broken_after.metadata['nbgrader']['grade_id']} did not come back",
                )
