"""``export``: one CSV row per student and lab, the gradebook's current points joined with the grading status."""

from __future__ import annotations

import dataclasses

from . import records
from .gradebook import gradebook_scores
from .labs import CourseError, lab_grade_cells
from .nbgrader_app import open_gradebook
from .paths import CoursePaths
from .records import GRADED, GradeResult, StatusStore, scored_in_gradebook


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


def export_scores(
    out, paths: CoursePaths | None = None, labs: list[str] | None = None, policy_file=None
) -> tuple[list[dict], list[str]]:
    """The labs' rows of ``course-grades`` (:data:`autograder.course_grades.SCORE_COLUMNS`) from the gradebook.

    One row per student and lab with points: nbgrader's submission time (from the
    hand-in's ``timestamp.txt``) and the lab's due date (``autograde --due``), both
    UTC. Returns the rows and one line per row without a submission time, or per
    student left out (a submission that could not be graded: no points to export).
    """
    import csv
    from datetime import timezone

    from .course_grades import SCORE_COLUMNS
    from .policy import load_policy

    paths = paths or CoursePaths.from_env()
    policy = load_policy(policy_file)
    times = {}
    if paths.gradebook.exists():
        with open_gradebook(paths) as gb:
            for a in gb.assignments:
                for s in a.submissions:
                    times[a.name, s.student.id] = (s.timestamp, a.duedate)

    def iso(when) -> str:  # nbgrader keeps UTC times without their zone
        return "" if when is None else when.replace(tzinfo=when.tzinfo or timezone.utc).isoformat()

    rows, notes = [], []
    for r in collect_results(paths, labs):
        category = policy.category_of(r.lab)
        if category is None:
            raise CourseError(f"{r.lab} is in no category of {policy.source}: add it to a category's members")
        if r.score is None or (r.lab, r.student_id) not in times:
            notes.append(f"{r.student_id} on {r.lab} left out ({r.status}: {r.message})")
            continue
        submitted, due = times[r.lab, r.student_id]
        if submitted is None and due is not None:  # without a due date the time does not matter
            notes.append(f"{r.student_id} on {r.lab}: no submission time (no timestamp.txt); fill submitted_at")
        rows.append(
            dict(
                zip(
                    SCORE_COLUMNS,
                    (r.student_id, r.lab, category.name, f"{r.score:g}", f"{r.max_score:g}", iso(submitted), iso(due)),
                )
            )
        )
    with open(out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=SCORE_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return rows, notes
