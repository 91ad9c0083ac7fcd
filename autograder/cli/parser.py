"""The command line's arguments: one subparser per verb (``python -m autograder SUBCOMMAND --help``)."""

from __future__ import annotations

import argparse
import os
import sys

from ..classroom.lms import FORMATS
from ..grading.scheduler import default_jobs


def build_parser() -> argparse.ArgumentParser:
    argv0 = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    parser = argparse.ArgumentParser(
        prog=argv0
        if argv0 and argv0 not in ("__main__.py", "-c") and not argv0.startswith("pytest")
        else "python -m autograder",
        description="HPML instructor pipeline on top of nbgrader: release labs, validate them, "
        "autograde a class, write feedback, export grades.",
        epilog="Course root: the repository (or $HPML_COURSE_ROOT). Grading folder: --grading-dir, "
        "$HPML_GRADING_DIR or autograder/work/ (git-ignored).",
    )
    grading_dir_help = (
        "working folder for submissions, gradebook, statuses and feedback "
        "(default: $HPML_GRADING_DIR or autograder/work)"
    )
    parser.add_argument("--grading-dir", metavar="DIR", help=grading_dir_help)
    # also accepted after the subcommand; SUPPRESS keeps a subcommand from resetting a value given before it
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--grading-dir", metavar="DIR", default=argparse.SUPPRESS, help=grading_dir_help)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser(
        "generate",
        parents=[common],
        help="generate the student release labs/<lab> from solutions/<lab>",
        description="Run nbgrader generate_assignment (forced) for each lab: solutions/<lab> -> "
        "labs/<lab>, without solutions, hidden tests, outputs or volatile metadata.",
    )
    p.add_argument("labs", nargs="*", metavar="LAB", help="lab names (folders of solutions/); default: all")
    p.add_argument("--release-dir", metavar="DIR", help="write the release here instead of labs/ (for checks)")

    p = sub.add_parser(
        "validate",
        parents=[common],
        help="check that sources pass all tests and releases fail them",
        description="Run every source notebook (all its tests must pass) and every released "
        "notebook (every autograded test must fail), with HPML_FAST=1. "
        "Exit status 1 on any failure.",
    )
    p.add_argument("labs", nargs="*", metavar="LAB", help="lab names; default: all")
    p.add_argument("--release-dir", metavar="DIR", help="validate the release in DIR instead of labs/")

    p = sub.add_parser(
        "autograde",
        parents=[common],
        help="grade a folder or .zip of submissions",
        description="Grade every <student_id>/<anything>.ipynb in SUBMISSIONS (a folder or a "
        ".zip), each student in a worker process of its own (--jobs at a time) "
        "against a private copy of the gradebook; this process merges each result "
        "into the gradebook. A bad submission gets a status and never stops the "
        "batch. Unchanged submissions already graded against the same lab version "
        "are kept (--force grades them again); a re-graded student's earlier "
        "result is replaced.",
    )
    p.add_argument("lab", metavar="LAB", help="the lab to grade (a folder of solutions/)")
    p.add_argument("submissions", metavar="SUBMISSIONS", help="folder or .zip of <student_id>/<notebook>.ipynb")
    p.add_argument(
        "--jobs",
        "-j",
        type=int,
        metavar="N",
        default=None,
        help=f"students graded at once (default: the usable cores, {default_jobs()} here)",
    )
    p.add_argument(
        "--gpus",
        type=int,
        metavar="N",
        default=None,
        help="a lab that uses a GPU gets this machine's first N GPUs (default: every one it may use, "
        "after CUDA_VISIBLE_DEVICES); each student's kernel sees its GPU as device 0",
    )
    p.add_argument(
        "--jobs-per-gpu",
        type=int,
        metavar="K",
        default=1,
        help="at most K students share one GPU at a time (default 1; speed tests on a shared GPU say so in the log)",
    )
    p.add_argument(
        "--student",
        action="append",
        metavar="ID",
        help="grade only this student (repeatable); the others keep their results",
    )
    p.add_argument("--force", action="store_true", help="grade again even unchanged, already graded submissions")
    p.add_argument(
        "--due",
        metavar="DATETIME",
        help="the lab's due date (e.g. '2026-11-20 23:59:00 UTC'); a timestamp.txt after it is late, or after the "
        "student's own due time where the policy's [[extensions]] give them one",
    )
    p.add_argument(
        "--policy",
        metavar="FILE",
        help="with --due: the course policy whose [[extensions]] for this lab apply (default: course_policy.toml)",
    )
    p.add_argument(
        "--roster",
        metavar="CSV",
        help="SUBMISSIONS is an LMS download: match its files to students with this roster "
        "(columns student_id and any of lms_id, email, name; optional submitted_at)",
    )
    p.add_argument(
        "--lms",
        choices=("auto", *FORMATS),
        default=None,
        help="which LMS made the download given with --roster (default: recognised from its file names)",
    )
    p.add_argument(
        "--backend",
        choices=("local", "slurm"),
        default="local",
        help="where the workers run: processes of this machine (default) or one Slurm array job, a task per student",
    )
    p.add_argument("--partition", default="", help="Slurm partition (default: $HPML_SLURM_PARTITION, or Slurm's)")
    p.add_argument("--account", default="", help="Slurm account (default: $HPML_SLURM_ACCOUNT)")
    p.add_argument(
        "--sbatch-option",
        action="append",
        metavar="OPTION",
        help="one more sbatch option, e.g. --sbatch-option=--qos=short (repeatable; default: $HPML_SLURM_OPTIONS)",
    )
    p.add_argument(
        "--slurm-gpu-option",
        action="append",
        metavar="OPTION",
        help="what each task of a GPU lab asks for instead of --gres=gpu:1, e.g. --slurm-gpu-option=--gpus-per-task=1 "
        "(repeatable; default: $HPML_SLURM_GPU_OPTIONS)",
    )
    p.add_argument(
        "--lms-time-zone",
        metavar="ZONE",
        default="UTC",
        help="time zone of the times an LMS writes without one (Brightspace), e.g. Europe/Paris (default UTC)",
    )

    p = sub.add_parser(
        "feedback",
        parents=[common],
        help="write HTML feedback for each graded student",
        description="Write feedback/<student>/<lab>/<notebook>.html in the grading folder for "
        "each graded student: points per test, failure messages, no hidden test "
        "code and no tracebacks.",
    )
    p.add_argument("lab", metavar="LAB")
    p.add_argument("--student", action="append", metavar="ID", help="only this student (repeatable)")

    p = sub.add_parser(
        "similarity",
        parents=[common],
        help="rank pairs of students whose answers share code, for a person to read",
        description="Compare the answer cells of every pair of submissions (winnowing fingerprints from copydetect: "
        "renamed variables, comments, whitespace and reordered functions do not hide shared code; the release's "
        "stubs never count) and write similarity/<lab>/report.html and pairs.csv in the grading folder. The "
        "report is evidence to read, not an accusation.",
    )
    p.add_argument("lab", metavar="LAB")
    p.add_argument(
        "submissions",
        nargs="?",
        metavar="SUBMISSIONS",
        help="a folder of <student>/<notebook>.ipynb (default: the grading folder's submitted/)",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=None,
        metavar="T",
        help="list a pair when this share of one student's answer code is in the other's (default 0.75)",
    )
    p.add_argument("--out", metavar="DIR", help="where to write the report (default: <grading dir>/similarity/<lab>)")

    p = sub.add_parser(
        "export",
        parents=[common],
        help="write the grade table as CSV",
        description="CSV with columns student_id, lab, score, max_score, status, message. "
        "status tells a submission that could not be graded from a real zero.",
    )
    p.add_argument("--out", metavar="FILE", help="output file ('-' for stdout; default: <grading dir>/grades.csv)")
    p.add_argument("--lab", action="append", metavar="LAB", help="only this lab (repeatable)")

    p.add_argument(
        "--scores",
        action="store_true",
        help="write the rows of course-grades instead: student_id,item,category,score,max_score,submitted_at,due_at",
    )
    p.add_argument("--policy", metavar="FILE", help="with --scores: the policy that names each lab's category")

    p = sub.add_parser(
        "course-grades",
        parents=[common],
        help="the term's final table by the course policy (late days, drops, weights, letters)",
        description="Read SCORES.csv (one row per student and item: student_id,item,category,score,max_score,"
        "submitted_at,due_at; `export --scores` writes the labs' rows) and apply the policy "
        "(course_policy.toml by default): late-day bank, penalties, drop the lowest, category weights, letters. "
        "Writes FINAL.csv, a report per student in FINAL_reports/, a plot FINAL.png, and LMS import files.",
    )
    p.add_argument("--scores", required=True, metavar="CSV", help="one row per student and item")
    p.add_argument("--out", required=True, metavar="FINAL.csv", help="the final table (one row per student)")
    p.add_argument("--policy", metavar="FILE", help="the grading policy (default: course_policy.toml)")
    p.add_argument(
        "--roster",
        metavar="CSV",
        help="every student of the class (student_id, and lms_id, email, name for LMS files); "
        "a student on it with no rows gets zeros, a student not on it is an error",
    )
    p.add_argument(
        "--lms",
        action="append",
        choices=("canvas", "brightspace"),
        help="also write FINAL_<lms>.csv for that LMS's gradebook import (repeatable)",
    )
    p.add_argument("--lms-item", default="total", metavar="ITEM", help="what the LMS file holds: total or one item")
    p.add_argument("--lms-title", metavar="TEXT", help="the LMS column's name (default: 'Final grade (%%)' or ITEM)")

    p = sub.add_parser(
        "generate-quiz",
        parents=[common],
        help="a week's self-check questions as an autograded quiz (solutions/ and labs/quiz_weekNN)",
        description="Write solutions/quiz_weekNN/quiz_weekNN.ipynb from the self-check questions of "
        "course/weekNN_*.ipynb, answers recomputed by autograder/classroom/quiz_keys/ and hidden, one point each, "
        "and release it to labs/quiz_weekNN/. Grade it with autograde like a lab.",
    )
    p.add_argument("--week", type=int, required=True, metavar="N", help="the course week, 1 to 14")

    sub.add_parser(
        "demo",
        parents=[common],
        help="grade the embedded sample class and print the grade table",
        description="Build the sample class of lab01 (perfect, one_wrong, untouched, not_json) "
        "from the solution and a fresh release, grade it in <grading dir>/demo, "
        "write feedback and a CSV, print the table and check the expected outcome.",
    )
    return parser
