"""The labs' rows of ``course-grades`` (``export --scores``): each student's points on each lab, with its times."""

from __future__ import annotations

from datetime import timezone

from .. import spreadsheet
from ..labs import CourseError
from ..paths import CoursePaths
from ..pipeline.export import collect_results
from ..pipeline.nbgrader_app import open_gradebook
from .course_grades import SCORE_COLUMNS
from .policy import load_policy


def export_scores(
    out, paths: CoursePaths | None = None, labs: list[str] | None = None, policy_file=None
) -> tuple[list[dict], list[str]]:
    """The labs' rows of ``course-grades`` (:data:`autograder.classroom.course_grades.SCORE_COLUMNS`) from the gradebook.

    One row per student and lab with points: nbgrader's submission time (from the
    hand-in's ``timestamp.txt``) and the due date that applied to the student
    (``autograde --due``, later for a student with an extension), both UTC. Returns the rows and one line per row without a submission time, or per
    student left out (a submission that could not be graded: no points to export).
    """
    paths = paths or CoursePaths.from_env()
    policy = load_policy(policy_file)
    times = {}
    if paths.gradebook.exists():
        with open_gradebook(paths) as gb:
            for a in gb.assignments:
                for s in a.submissions:
                    times[a.name, s.student.id] = (s.timestamp, s.duedate)  # the student's own: extensions in

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
        writer = spreadsheet.DictWriter(f, fieldnames=SCORE_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return rows, notes
