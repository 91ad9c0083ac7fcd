"""Command line of the HPML autograder: ``python -m autograder ...`` or ``hpml-grade ...``.

Subcommands (``python -m autograder SUBCOMMAND --help`` for details)::

    generate [LAB ...]          solutions/<lab> -> labs/<lab> (student release; all labs by default)
    validate [LAB ...]          sources pass all their tests; releases fail every autograded test
    autograde LAB SUBMISSIONS   grade a folder or .zip of <student_id>/<notebook>.ipynb
                                (--jobs N in parallel, --student ID, --force, --due DATETIME)
    feedback LAB                HTML feedback per graded student (no hidden tests, no tracebacks)
    export [--out grades.csv]   CSV: student_id, lab, score, max_score, status, message
                                (--scores: the rows course-grades reads, with submission and due times)
    course-grades --scores CSV --out FINAL.csv
                                the term's grades by course_policy.toml (late days, drops, weights, letters)
    generate-quiz --week N      a week's self-check questions as an autograded quiz lab (quiz_weekNN)
    demo                        build the sample class, grade it, print the grade table

Grading output (gradebook, statuses, feedback, logs) goes to the grading folder:
``--grading-dir``, else ``$HPML_GRADING_DIR``, else ``autograder/work/``.
Grading kernels run with ``HPML_FAST=1``.
"""

from __future__ import annotations

import sys

from ..labs import CourseError
from ..paths import CoursePaths, CourseRootNotFound
from ..pipeline.kernels import KernelMissing
from .commands import (
    cmd_autograde,
    cmd_course_grades,
    cmd_demo,
    cmd_export,
    cmd_feedback,
    cmd_generate,
    cmd_generate_quiz,
    cmd_similarity,
    cmd_validate,
    format_table,
    status_summary,
)
from .parser import build_parser

__all__ = ["COMMANDS", "build_parser", "format_table", "main", "status_summary"]

COMMANDS = {
    "generate": cmd_generate,
    "validate": cmd_validate,
    "autograde": cmd_autograde,
    "feedback": cmd_feedback,
    "similarity": cmd_similarity,
    "export": cmd_export,
    "course-grades": cmd_course_grades,
    "generate-quiz": cmd_generate_quiz,
    "demo": cmd_demo,
}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        paths = CoursePaths.from_env(work=args.grading_dir, release=getattr(args, "release_dir", None))
        return COMMANDS[args.command](args, paths)
    except (CourseError, KernelMissing, CourseRootNotFound) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            "interrupted: statuses of the students graded so far are saved; run the same command again", file=sys.stderr
        )
        return 130


if __name__ == "__main__":
    sys.exit(main())
