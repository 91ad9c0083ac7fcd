"""``export``: one CSV row per student and lab, the gradebook's current points joined with the grading status."""

from __future__ import annotations

import dataclasses

from .. import records
from ..labs import CourseError, lab_grade_cells
from ..paths import CoursePaths
from ..records import GRADED, GradeResult, StatusStore, scored_in_gradebook
from .gradebook import gradebook_scores
from .nbgrader_app import open_gradebook


def collect_results(paths: CoursePaths | None = None, labs: list[str] | None = None) -> list[GradeResult]:
    """Statuses joined with the gradebook's current points (which include any manual grading since)."""
    from nbgrader.api import MissingEntry

    paths = paths or CoursePaths.from_env()
    store = StatusStore(paths.statuses)
    rows = {(r.lab, r.student_id): dataclasses.replace(r) for r in store.results()}
    if paths.gradebook.exists():
        with open_gradebook(paths) as gb:
            pairs = [(a.name, s.student.id) for a in gb.assignments for s in a.submissions]
        for lab, sid in pairs:
            rec = rows.get((lab, sid))
            if rec is None:
                rec = GradeResult(sid, GRADED, lab=lab)
                note = "graded outside this tool (no status record)"
            elif not scored_in_gradebook(rec):
                continue
            else:
                note = "; ".join(x for x in (rec.detail, rec.note) if x)
            try:
                cells = lab_grade_cells(lab, paths)
            except CourseError:  # a lab that is no longer in solutions/
                cells = None
            try:
                scores = gradebook_scores(lab, sid, paths, cells)
            except MissingEntry:
                continue
            rec.score, rec.max_score, rec.failed_tests = scores.score, scores.max_score, scores.failed
            rec.message = scores.message(note)
            rows[(lab, sid)] = rec
    out = [r for r in rows.values() if labs is None or r.lab in labs]
    return sorted(out, key=lambda r: (r.lab, r.student_id))


def export_grades(out, paths: CoursePaths | None = None, labs: list[str] | None = None) -> list[GradeResult]:
    """Write the grade CSV (:data:`autograder.records.CSV_COLUMNS`) to a path or text stream."""
    rows = collect_results(paths, labs)
    records.write_csv(rows, out)
    return rows
