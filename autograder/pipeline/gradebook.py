"""The gradebook (nbgrader's sqlite database): read a student's points, merge a worker's copy, forget a grading.

The main process is the only writer of the real gradebook: each worker grades
against a private copy (:func:`snapshot_gradebook`) and :func:`merge_submission`
copies that student's rows back.
"""

from __future__ import annotations

import contextlib
import sqlite3
import warnings
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..labs import GradeCellInfo, notebook_names
from ..paths import CoursePaths
from .nbgrader_app import COURSE_ID, open_gradebook


def remove_submission(gb, lab: str, student_id: str) -> None:
    """Remove ``student_id``'s submission of ``lab`` from the open gradebook ``gb``, if it has one."""
    from nbgrader.api import MissingEntry

    with contextlib.suppress(MissingEntry):
        gb.remove_submission(lab, student_id)


def forget_grading(lab: str, student_id: str, paths: CoursePaths, *, gradebook_too: bool) -> None:
    """Remove what an earlier grading of this student's lab left (files, and optionally the gradebook entry)."""
    from nbgrader.utils import rmtree

    for base in (paths.submitted, paths.autograded, paths.feedback):
        folder = base / student_id / lab
        if folder.exists():
            rmtree(str(folder))
    if gradebook_too and paths.gradebook.exists():
        with open_gradebook(paths) as gb:
            remove_submission(gb, lab, student_id)


def lab_registered(lab: str, paths: CoursePaths) -> bool:
    """Whether the gradebook knows ``lab`` with exactly the notebooks ``solutions/<lab>/`` has now."""
    from nbgrader.api import MissingEntry

    if not paths.gradebook.exists():
        return False
    with open_gradebook(paths) as gb:
        try:
            assignment = gb.find_assignment(lab)
        except MissingEntry:
            return False
        return {n.name for n in assignment.notebooks} == set(notebook_names(lab, paths))


def graded_message(
    failed: list[str],
    manual_pending: float,
    note: str = "",
    unanswered: list[str] = (),
    n_tests: int = 0,
    n_written: int = 0,
) -> str:
    """One line for the instructor: failed autograded tests, unanswered and pending written answers, notes."""
    parts = []
    if failed:
        many = n_tests > 3 and len(failed) == n_tests
        parts.append(f"failed: all {n_tests} autograded tests" if many else "failed: " + ", ".join(failed))
    if unanswered:
        many = n_written > 3 and len(unanswered) == n_written
        parts.append(f"unanswered: all {n_written} written answers" if many else "unanswered: " + ", ".join(unanswered))
    if manual_pending:
        parts.append(
            f"{manual_pending:g} point{'' if manual_pending == 1 else 's'} of written answers "
            + ("awaits" if manual_pending == 1 else "await")
            + " manual grading"
        )
    if note:
        parts.append(note)
    return "; ".join(parts)


@dataclass
class Scores:
    """A submission's points as the gradebook has them now."""

    score: float
    max_score: float
    failed: list[str]  # autograded test cells that lost points, in notebook order
    unanswered: list[str]  # manually graded answers left as released (nbgrader gives them 0)
    manual_pending: float  # points of answers waiting for a human grader
    n_tests: int = 0  # autograded test cells of the lab
    n_written: int = 0  # manually graded answers of the lab

    def message(self, note: str = "") -> str:
        return graded_message(self.failed, self.manual_pending, note, self.unanswered, self.n_tests, self.n_written)


def gradebook_scores(
    lab: str, student_id: str, paths: CoursePaths, cells: list[GradeCellInfo] | None = None, gb=None
) -> Scores:
    """Read one submission's points from the gradebook (``MissingEntry`` if there is none); ``gb``: one already open."""
    order = {c.grade_id: i for i, c in enumerate(cells or [])}
    autograded = {c.grade_id for c in cells or [] if c.autograded}
    with contextlib.ExitStack() as stack:
        gb = gb or stack.enter_context(open_gradebook(paths))
        sub = gb.find_submission(lab, student_id)
        failed, unanswered, pending = [], [], 0.0
        for nb in sub.notebooks:
            for g in nb.grades:
                is_test = g.name in autograded if cells else g.cell.cell_type == "code"
                if g.manual_score is not None:
                    continue
                if g.needs_manual_grade:
                    pending += float(g.max_score)
                elif g.auto_score is not None and g.auto_score < g.max_score:
                    (failed if is_test else unanswered).append(g.name)

        def key(gid: str) -> tuple[int, str]:
            return order.get(gid, len(order)), gid

        return Scores(
            float(sub.score),
            float(sub.max_score),
            sorted(failed, key=key),
            sorted(unanswered, key=key),
            pending,
            len(autograded),
            len(cells or []) - len(autograded),
        )


def merge_submission(lab: str, student_id: str, private_db: Path, paths: CoursePaths, dst=None) -> None:
    """Copy one student's submission of ``lab`` from a worker's gradebook into the real one, replacing theirs.

    Copies the submission (timestamp, extension), each submitted notebook's
    flag and late penalty, every grade (auto/manual score, extra credit,
    needs manual grade) and every comment (auto/manual). The main process is
    the only caller: it is the single writer of the real gradebook. ``dst``:
    the real gradebook when the caller has it open already.
    """
    from nbgrader.api import Gradebook

    with warnings.catch_warnings(), contextlib.ExitStack() as stack:
        warnings.simplefilter("ignore")
        src = stack.enter_context(Gradebook(f"sqlite:///{private_db}", COURSE_ID))
        dst = dst or stack.enter_context(open_gradebook(paths))
        sub = src.find_submission(lab, student_id)
        student = sub.student
        remove_submission(dst, lab, student_id)
        dst.update_or_create_student(
            student_id, first_name=student.first_name, last_name=student.last_name, email=student.email
        )
        kwargs = {"timestamp": sub.timestamp} if sub.timestamp is not None else {}
        dst.add_submission(lab, student_id, **kwargs)
        target = dst.find_submission(lab, student_id)
        target.extension = sub.extension
        for nb in sub.notebooks:
            tnb = dst.find_submission_notebook(nb.name, lab, student_id)
            tnb.flagged = nb.flagged
            tnb.late_submission_penalty = nb.late_submission_penalty
            grades = {g.name: g for g in tnb.grades}
            for g in nb.grades:
                t = grades[g.name]
                t.auto_score, t.manual_score, t.extra_credit = g.auto_score, g.manual_score, g.extra_credit
                t.needs_manual_grade = g.needs_manual_grade
            comments = {c.name: c for c in tnb.comments}
            for c in nb.comments:
                t = comments[c.name]
                t.auto_comment, t.manual_comment = c.auto_comment, c.manual_comment
        dst.db.commit()


def set_extension(lab: str, student_id: str, extension, gb) -> datetime | None:
    """Give the student's submission nbgrader's ``extension`` (a timedelta; None leaves it as it is); their own
    due time (aware, UTC) when they have an extension and the lab has a due date."""
    submission = gb.find_submission(lab, student_id)
    if extension is not None:
        submission.extension = extension
        gb.db.commit()
    if submission.extension is None or submission.assignment.duedate is None:
        return None
    return submission.duedate.replace(tzinfo=timezone.utc)


def seconds_late(lab: str, student_id: str, paths: CoursePaths, gb=None) -> float:
    with contextlib.ExitStack() as stack:
        gb = gb or stack.enter_context(open_gradebook(paths))
        try:
            return float(gb.find_submission(lab, student_id).total_seconds_late or 0)
        except Exception:  # noqa: BLE001 - no due date, no timestamp
            return 0.0


def snapshot_gradebook(lab: str, paths: CoursePaths) -> Path:
    """A copy of the gradebook (lab registered) for the workers to copy from; sqlite's backup API, so it is consistent."""
    snap = paths.work / "jobs" / lab / "gradebook.snapshot.db"
    snap.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.closing(sqlite3.connect(paths.gradebook)) as src, contextlib.closing(sqlite3.connect(snap)) as dst:
        src.backup(dst)
    return snap
