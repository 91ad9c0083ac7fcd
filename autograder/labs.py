"""A lab as the grader sees it: its source notebooks in ``solutions/<lab>/`` and their graded cells.

The one definition of a *test cell* lives here (:func:`is_test_cell`): the
tamper guard, the grade reports and the worker all ask this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import nbformat

from .paths import CoursePaths


class CourseError(RuntimeError):
    """A step failed for a reason that is not one student's submission (a broken lab, a missing kernel...)."""


def list_labs(paths: CoursePaths | None = None) -> list[str]:
    """Every folder of ``solutions/`` that holds a notebook, sorted."""
    paths = paths or CoursePaths.from_env()
    return sorted(
        p.name for p in paths.source.iterdir() if p.is_dir() and not p.name.startswith(".") and any(p.glob("*.ipynb"))
    )


def source_notebooks(lab: str, paths: CoursePaths) -> list[Path]:
    """The lab's source notebooks in ``solutions/<lab>/``; :class:`CourseError` if there are none."""
    folder = paths.source / lab
    found = sorted(folder.glob("*.ipynb")) if folder.is_dir() else []
    if not found:
        labs = ", ".join(list_labs(paths)) or "none"
        raise CourseError(f"no lab {lab!r} in {paths.source} (labs there: {labs})")
    return found


def notebook_names(lab: str, paths: CoursePaths) -> list[str]:
    return [p.stem for p in source_notebooks(lab, paths)]


def is_test_cell(cell: Mapping) -> bool:
    """An autograded test cell: a graded code cell that is not the student's answer (nbgrader: grade, not solution)."""
    nbg = cell.get("metadata", {}).get("nbgrader", {})
    return cell.get("cell_type") == "code" and bool(nbg.get("grade")) and not nbg.get("solution")


def cell_label(cell: Mapping, index: int) -> str:
    """A cell's grade id, or ``cell <index>`` for a cell without nbgrader metadata."""
    gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
    return gid or f"cell {index}"


@dataclass(frozen=True)
class GradeCellInfo:
    grade_id: str
    points: float
    autograded: bool  # a test cell (not a manually graded answer)
    notebook: str


def grade_cells(notebook: Path) -> list[GradeCellInfo]:
    """The graded cells of one (source or release) notebook, in order, from its nbgrader metadata."""
    nb = nbformat.read(notebook, as_version=4)
    cells = []
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            points = float(meta.get("points", 0))
            cells.append(GradeCellInfo(meta["grade_id"], points, is_test_cell(cell), notebook.stem))
    return cells


def lab_grade_cells(lab: str, paths: CoursePaths) -> list[GradeCellInfo]:
    return [c for nb in source_notebooks(lab, paths) for c in grade_cells(nb)]
