"""HPML instructor pipeline on top of nbgrader (release, validate, autograde, feedback, export).

Command line: ``python -m autograder --help`` (or ``hpml-grade``). Library entry
points: :func:`grade_one` (one student in a worker process, a :class:`GradeResult`)
and :func:`autograde_class` (a folder or zip of submissions, ``jobs`` workers at a
time, each against a private copy of the gradebook; the calling process merges
and records every result). The nbgrader configuration is
``autograder/nbgrader_config.py``; where things go is in ``autograder/paths.py``.

Where things happen, one job per module:

- the verbs: ``generate``, ``validate``, ``autograde``, ``feedback``, ``export``
  (and ``cli`` for the command line);
- nbgrader and the course: ``nbgrader_app`` (configuration, converter runs,
  the gradebook), ``nbgrader_config``, ``labs`` (a lab's notebooks and graded
  cells), ``limits``, ``versions`` (hashes that decide what is graded again),
  ``submissions`` (finding students' files), ``lms`` (an LMS's download and a
  roster turned into students' folders), ``records`` (statuses, the CSV);
- grading a class: ``scheduler`` (starts, polls and kills workers),
  ``slurm`` and ``slurm_task`` (the same workers as one Slurm array job),
  ``worker`` (one student), ``job`` (the files a worker and the batch
  exchange), ``execute`` (the Execute preprocessor a worker runs),
  ``classify`` (outcome to status, pure), ``gradebook`` (merging and reading
  points), ``scoring`` (points follow asserts, not stderr);
- the term's grades: ``policy`` (``course_policy.toml``), ``late_days``,
  ``course_grades`` (``course-grades``: bank, penalties, drops, weights,
  letters, reports), ``grade_exports`` (Canvas and Brightspace import files,
  the plot); quizzes: ``quiz_bank`` (the self-check questions and
  ``quiz_keys/``), ``quiz`` (``generate-quiz``);
- what students receive: ``student_release`` (``make student-release``);
- isolation: ``sandbox``, ``kernel_launcher``, ``reply_channel``, ``tamper``
  and ``kernel_guard`` (the code that runs inside the student's kernel).
"""

from .autograde import autograde_class, grade_one
from .export import collect_results, export_grades
from .feedback import feedback_lab
from .generate import generate_lab
from .paths import CoursePaths
from .records import (
    GRADED,
    GRADER_ERROR,
    INVALID_NOTEBOOK,
    KERNEL_DIED,
    LATE,
    MEMORY_LIMIT,
    STATUSES,
    TAMPERED,
    TIMED_OUT,
    GradeResult,
)
from .validate import validate_lab

__all__ = [
    "CoursePaths",
    "GRADED",
    "GRADER_ERROR",
    "INVALID_NOTEBOOK",
    "KERNEL_DIED",
    "LATE",
    "MEMORY_LIMIT",
    "STATUSES",
    "TAMPERED",
    "TIMED_OUT",
    "GradeResult",
    "autograde_class",
    "collect_results",
    "export_grades",
    "feedback_lab",
    "generate_lab",
    "grade_one",
    "validate_lab",
]
