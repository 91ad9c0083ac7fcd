"""HPML instructor pipeline on top of nbgrader (release, validate, autograde, feedback, export).

Command line: ``python -m autograder --help`` (or ``hpml-grade``). Library entry
points: :func:`grade_one` (one student in a worker process, a :class:`GradeResult`)
and :func:`autograde_class` (a folder or zip of submissions, ``jobs`` workers at a
time, each against a private copy of the gradebook; the calling process merges
and records every result). The nbgrader
configuration is ``autograder/nbgrader_config.py``; where things go is in
``autograder/paths.py``.
"""

from .paths import CoursePaths
from .pipeline import (
    autograde_class,
    collect_results,
    export_grades,
    feedback_lab,
    generate_lab,
    grade_one,
    validate_lab,
)
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
