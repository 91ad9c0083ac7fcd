"""A toy course for end-to-end autograder tests: one small lab (``toylab``) with hidden tests and a written answer.

Grading it through the real nbgrader configuration takes seconds, where a
course lab takes minutes. The ``toy_course`` fixture (``tests/autograder/conftest.py``)
puts it in a temporary course root.
"""

from __future__ import annotations

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

TOY = "toylab"


def grade_meta(grade_id, *, solution=False, grade=False, locked=False, points=None):
    m = {"grade_id": grade_id, "solution": solution, "grade": grade, "locked": locked, "schema_version": 3}
    if points is not None:
        m["points"] = points
    return {"nbgrader": m}


def toy_notebook() -> nbformat.NotebookNode:
    """A small nbgrader source notebook: two graded functions, hidden tests, a written answer."""
    cells = [
        new_markdown_cell("# Toy lab", metadata=grade_meta("intro", locked=True)),
        new_code_cell("import os\nprint('fast mode:', os.environ.get('HPML_FAST'))"),
        new_code_cell(
            'def add(a, b):\n    """Return a + b."""\n    ### BEGIN SOLUTION\n'
            "    total = a + b  # toy_add_solution_line\n    return total\n    ### END SOLUTION",
            metadata=grade_meta("answer_add", solution=True),
        ),
        new_code_cell(
            "assert add(1, 2) == 3, 'add(1, 2) should be 3'\n### BEGIN HIDDEN TESTS\n"
            "assert add(-5, 5) == 0, 'add: opposite numbers'  # toy_hidden_add_line\n### END HIDDEN TESTS",
            metadata=grade_meta("test_add", grade=True, locked=True, points=2),
        ),
        new_code_cell(
            'def average_throughput(work, times):\n    """Total work over total time."""\n'
            "    ### BEGIN SOLUTION\n    return len(times) * work / sum(times)  # toy_avg_solution_line\n"
            "    ### END SOLUTION",
            metadata=grade_meta("answer_average_throughput", solution=True),
        ),
        new_code_cell(
            "assert abs(average_throughput(10, [1, 1]) - 10) < 1e-9, 'equal times'\n"
            "### BEGIN HIDDEN TESTS\nexpected_toy_hidden = 2 * 10 / (1 + 4)  # toy_hidden_avg_line\n"
            "assert abs(average_throughput(10, [1, 4]) - expected_toy_hidden) < 1e-9, "
            "'average_throughput: unequal run times'\n### END HIDDEN TESTS",
            metadata=grade_meta("test_average_throughput", grade=True, locked=True, points=3),
        ),
        new_markdown_cell("Why the harmonic mean?", metadata=grade_meta("question", locked=True)),
        new_markdown_cell(
            "The work per run is fixed.", metadata=grade_meta("written_why", solution=True, grade=True, points=1)
        ),
    ]
    return new_notebook(
        cells=cells,
        metadata={
            "kernelspec": {"name": "hpml", "display_name": "Python 3 (HPML)", "language": "python"},
            "language_info": {"name": "python", "version": "3.11.0"},
        },
    )
