"""Graded cells a submission edited, deleted, re-labelled or re-flagged: reported, and undone before grading.

nbgrader restores locked cells from the gradebook (``OverwriteCells``) and
re-adds deleted test cells; :class:`DropUnknownGradeIds` makes that work for
invented grade ids and flipped flags too, and :func:`cell_changes` lists what
a submission changed, for the ``tampered`` status.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from nbgrader.preprocessors import NbGraderPreprocessor


def cell_changes(submitted_nb, source_cells: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Changes a submission made to graded or locked cells, in words, for the instructor.

    ``source_cells``: ``{grade_id: {"locked", "source", "points", "grade", "solution", "cell_type"}}`` (the
    released notebook's cells: :func:`release_cells`). Reports deleted graded cells, edited locked cells, changed
    points, unknown (renamed) and duplicated grade ids, and changed cell types or flags. The gradebook
    wins in every case: this only reports.
    """
    changes, seen = [], {}
    for cell in submitted_nb.cells:
        nbg = cell.get("metadata", {}).get("nbgrader")
        if not nbg:
            continue
        gid = nbg.get("grade_id")
        if gid is None:
            continue
        seen[gid] = seen.get(gid, 0) + 1
        src = source_cells.get(gid)
        if src is None:
            changes.append(f"cell {gid!r}: grade id not in the source notebook (renamed or invented)")
            continue
        if cell.get("cell_type") != src.get("cell_type"):
            changes.append(f"cell {gid}: cell type changed to {cell.get('cell_type')}")
        if src.get("locked") and _norm(cell.get("source", "")) not in (
            _norm(src.get("source", "")),
            _norm(_without_hidden_tests(src.get("source", ""))),
        ):
            changes.append(f"cell {gid}: locked cell edited (restored from the source)")
        if src.get("grade") and nbg.get("points") is not None and src.get("points") is not None:
            try:
                differs = float(nbg.get("points")) != float(src["points"])
            except (TypeError, ValueError):
                differs = True
            if differs:
                changes.append(f"cell {gid}: points changed from {src['points']:g} to {nbg.get('points')}")
        if bool(nbg.get("locked")) != bool(src.get("locked")):
            changes.append(f"cell {gid}: locked flag changed to {bool(nbg.get('locked'))}")
        if bool(nbg.get("grade")) != bool(src.get("grade")):
            changes.append(f"cell {gid}: grade flag changed to {bool(nbg.get('grade'))}")
        if "solution" in src and bool(nbg.get("solution")) != bool(src["solution"]):
            changes.append(f"cell {gid}: solution flag changed to {bool(nbg.get('solution'))}")
    for gid, n in seen.items():
        if n > 1:
            changes.append(f"cell {gid}: grade id used by {n} cells")
    for gid, src in source_cells.items():
        if src.get("grade") and gid not in seen:
            changes.append(f"cell {gid}: graded cell deleted (restored from the source)")
    return changes


def _norm(source: str) -> str:
    return "\n".join(line.rstrip() for line in source.splitlines() if line.strip())


def _without_hidden_tests(source: str, begin: str = "BEGIN HIDDEN TESTS", end: str = "END HIDDEN TESTS") -> str:
    """A source cell as released to students (nbgrader's ClearHiddenTests drops the marked region)."""
    kept, inside = [], False
    for line in source.splitlines():
        if begin in line:
            inside = True
        elif end in line:
            inside = False
        elif not inside:
            kept.append(line)
    return "\n".join(kept)


class DropUnknownGradeIds(NbGraderPreprocessor):
    """Sanitize, before OverwriteCells: unknown grade ids become plain cells; known ones get their flags back.

    - A cell whose grade id is not in the gradebook (renamed or invented) becomes a plain cell. nbgrader
      0.9.6 would drop the id but keep ``grade: true`` and then fail the whole submission with
      ``KeyError: 'grade_id'`` in ``add_missing_cells``; now the original cell is restored instead.
    - A cell with a known grade id gets the gradebook's ``grade``/``solution``/``task``/``locked`` flags
      back. nbgrader checks ``locked`` and ``points`` but not the others, and a flipped flag on an edited
      locked cell makes it fail the submission with ``Inconsistent checksums``.
    """

    def preprocess(self, nb, resources):
        from nbgrader.api import Gradebook

        ids = resources["nbgrader"]
        with Gradebook(ids["db_url"]) as gb:
            source_nb = gb.find_notebook(ids["notebook"], ids["assignment"])
            locked = {c.name: bool(c.locked) for c in source_nb.source_cells}
            flags = {
                name: {"grade": False, "solution": False, "task": False, "locked": value}
                for name, value in locked.items()
            }
            for attr, cells in (
                ("grade", source_nb.grade_cells),
                ("solution", source_nb.solution_cells),
                ("task", source_nb.task_cells),
            ):
                for c in cells:
                    if c.name in flags:
                        flags[c.name][attr] = True
        for cell in nb.cells:
            nbg = cell.get("metadata", {}).get("nbgrader")
            if not nbg:
                continue
            gid = nbg.get("grade_id")
            if gid in flags:
                for attr, value in flags[gid].items():
                    if bool(nbg.get(attr)) != value:
                        self.log.warning("cell %s: %s flag restored to %s", gid, attr, value)
                        nbg[attr] = value
            elif nbg.get("grade") or nbg.get("locked") or nbg.get("solution") or nbg.get("task"):
                self.log.warning("cell with unknown grade id %r made a plain cell", gid)
                del cell.metadata["nbgrader"]
        return nb, resources


def release_cells(release_nb: Path) -> dict[str, dict]:
    """``{grade_id: {cell_type, locked, source, points, grade, solution}}`` of the released notebook (what students got).

    The gradebook's source cells hold the hidden tests, which no student has:
    compared with them, every test cell would look edited.
    """
    import nbformat

    out = {}
    for cell in nbformat.read(release_nb, as_version=4).cells:
        nbg = cell.metadata.get("nbgrader", {})
        if nbg.get("grade_id"):
            points = float(nbg["points"]) if nbg.get("grade") and "points" in nbg else None
            out[nbg["grade_id"]] = {
                "cell_type": cell.cell_type,
                "locked": bool(nbg.get("locked")),
                "source": cell.source,
                "grade": bool(nbg.get("grade")),
                "points": points,
                "solution": bool(nbg.get("solution")),
            }
    return out


def submission_changes(submitted_nb: Path, release_nb: Path) -> list[str]:
    """What a submitted notebook file changed in the graded cells of the released one (:func:`cell_changes`)."""
    import nbformat

    if not submitted_nb.exists() or not release_nb.exists():
        return []
    nb = nbformat.read(submitted_nb, as_version=4)
    return cell_changes(nb, release_cells(release_nb))
