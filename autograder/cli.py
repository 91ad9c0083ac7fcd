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

import argparse
import os
import sys
from pathlib import Path

from .autograde import autograde_class
from .export import export_grades
from .feedback import feedback_lab
from .generate import generate_lab
from .kernels import KernelMissing
from .lab_settings import limits_for
from .labs import CourseError, grade_cells, list_labs
from .lms import FORMATS, import_download
from .paths import CoursePaths, CourseRootNotFound
from .records import GradeResult, StatusStore, scored_in_gradebook
from .scheduler import default_jobs
from .validate import validate_lab


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
        "--student",
        action="append",
        metavar="ID",
        help="grade only this student (repeatable); the others keep their results",
    )
    p.add_argument("--force", action="store_true", help="grade again even unchanged, already graded submissions")
    p.add_argument(
        "--due",
        metavar="DATETIME",
        help="the lab's due date (e.g. '2026-11-20 23:59:00 UTC'); a timestamp.txt after it is late",
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
        "course/weekNN_*.ipynb, answers recomputed by autograder/quiz_keys/ and hidden, one point each, "
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


def format_table(results: list[GradeResult], message_width: int = 110) -> str:
    """The grade table: student, points, max, status, message (cut to ``message_width``; the CSV has it whole)."""

    def cut(text: str) -> str:
        return text if len(text) <= message_width else text[: message_width - 3] + "..."

    head = ("student", "points", "max", "status", "message")
    rows = [
        (
            r.student_id,
            "" if r.score is None else f"{r.score:g}",
            "" if r.max_score is None else f"{r.max_score:g}",
            r.status,
            cut(r.message),
        )
        for r in results
    ]
    w = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    lines = [f"{a:<{w[0]}}  {b:>{w[1]}}  {c:>{w[2]}}  {d:<{w[3]}}  {e}".rstrip() for a, b, c, d, e in [head, *rows]]
    lines.insert(1, "-" * min(max(len(l) for l in lines), 120))
    return "\n".join(lines)


def status_summary(results: list[GradeResult]) -> str:
    """``"4 submissions: 3 graded, 1 invalid notebook"``."""
    counts: dict[str, int] = {}
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1
    parts = ", ".join(f"{n} {status}" for status, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"{len(results)} submission{'' if len(results) == 1 else 's'}: {parts or 'none'}"


def _labs(requested: list[str], paths: CoursePaths) -> list[str]:
    labs = requested or list_labs(paths)
    if not labs:
        raise CourseError(f"no labs in {paths.source}")
    return labs


def cmd_generate(args, paths: CoursePaths) -> int:
    for lab in _labs(args.labs, paths):
        for nb in generate_lab(lab, paths):
            cells = grade_cells(nb)
            tests = [c for c in cells if c.autograded]
            print(
                f"{lab}: wrote {_rel(nb, paths)} ({len(tests)} autograded test cells, "
                f"{sum(c.points for c in tests):g} autograded points, {sum(c.points for c in cells):g} in all)"
            )
    return 0


def cmd_validate(args, paths: CoursePaths) -> int:
    failed = 0
    for lab in _labs(args.labs, paths):
        print(f"{lab}: validating (runs the source and the release with HPML_FAST=1) ...", flush=True)
        report = validate_lab(lab, paths)
        if report.ok:
            print(
                f"{lab}: OK: the source passes all {report.test_cells} autograded test cells; "
                f"the release fails every one of them"
            )
        else:
            failed += 1
            print(f"{lab}: FAILED ({len(report.problems)} problems)")
            for problem in report.problems:
                print(f"  - {problem}")
    return 1 if failed else 0


def cmd_autograde(args, paths: CoursePaths) -> int:
    slurm = None
    if args.backend == "slurm":
        from .slurm import SlurmOptions

        slurm = SlurmOptions.from_env(args.partition, args.account, args.sbatch_option)
    elif args.partition or args.account or args.sbatch_option:
        raise CourseError("--partition, --account and --sbatch-option are for --backend slurm")
    jobs = args.jobs or (None if slurm else default_jobs())
    if jobs is not None and jobs < 1:
        raise CourseError("--jobs must be at least 1")
    limits = limits_for(args.lab)
    print(
        f"grading {args.lab} from {args.submissions} into {paths.work} "
        f"({'on Slurm, ' if slurm else ''}{jobs or 'as many as Slurm allows'} at a time; limits: {limits.describe()})",
        flush=True,
    )
    print(_isolation_line(), flush=True)
    submissions = args.submissions
    if args.lms and not args.roster:
        raise CourseError("--lms needs --roster: the CSV that says which student each LMS file belongs to")
    if args.roster:
        submissions, found = import_download(
            args.lab, Path(args.submissions), Path(args.roster), paths.work, args.lms or "auto", args.lms_time_zone
        )
        print("\n".join(found.report()), flush=True)
    results = autograde_class(
        args.lab,
        submissions,
        paths,
        progress=lambda line: print(line, flush=True),
        jobs=jobs,
        students=args.student,
        force=args.force,
        due=args.due,
        bar=True,
        slurm=slurm,
    )
    print()
    print(format_table(results))
    print("\n" + status_summary(results))
    print(
        f"statuses: {paths.statuses}; next: `python -m autograder feedback {args.lab}` and "
        "`python -m autograder export`"
    )
    return 0


def _isolation_line() -> str:
    """What the sandbox guarantees on this machine, said once per run."""
    try:
        from . import sandbox

        return sandbox.describe_isolation()
    except Exception as exc:  # noqa: BLE001 - a broken sandbox must say so, not stop the listing
        return f"isolation: unavailable ({type(exc).__name__}: {exc})"


def cmd_feedback(args, paths: CoursePaths) -> int:
    out = feedback_lab(args.lab, paths, students=args.student, progress=None)
    for sid, where in out.items():
        print(f"{sid}: {where}")
    bad = sum(1 for where in out.values() if not isinstance(where, Path))
    for r in StatusStore(paths.statuses).results(args.lab):
        if not scored_in_gradebook(r) and (not args.student or r.student_id in args.student):
            print(f"{r.student_id}: no feedback ({r.status}: {r.message})")
    if not out:
        print(f"no graded submissions of {args.lab} in {paths.work}")
    return 1 if bad else 0


def cmd_export(args, paths: CoursePaths) -> int:
    if args.scores:
        from .export import export_scores

        out = Path(args.out) if args.out and args.out != "-" else paths.work / "scores.csv"
        rows, untimed = export_scores(out, paths, args.lab, args.policy)
        print(f"wrote {len(rows)} rows to {out}")
        for line in untimed:
            print(f"  {line}")
        return 0
    if args.out == "-":
        export_grades(sys.stdout, paths, args.lab)
        return 0
    out = Path(args.out) if args.out else paths.work / "grades.csv"
    rows = export_grades(out, paths, args.lab)
    print(f"wrote {len(rows)} rows to {out}")
    return 0


def cmd_course_grades(args, paths: CoursePaths) -> int:
    from .course_grades import course_grades, item_order, read_scores, write_final_csv, write_reports
    from .grade_exports import plot_grades, write_brightspace, write_canvas
    from .lms import read_roster
    from .policy import load_policy

    policy = load_policy(args.policy)
    rows = read_scores(args.scores, policy)
    roster = {e.student_id: e for e in read_roster(Path(args.roster))} if args.roster else {}
    grades = course_grades(rows, policy, sorted(roster) if args.roster else None)
    out = Path(args.out)
    write_final_csv(grades, policy, item_order(rows, policy), out)
    reports = write_reports(grades, out.with_name(f"{out.stem}_reports"))
    picture = plot_grades(grades, policy, out.with_suffix(".png"))
    title = args.lms_title or ("Final grade (%)" if args.lms_item == "total" else args.lms_item)
    writers = {"canvas": write_canvas, "brightspace": write_brightspace}
    for lms in args.lms or []:
        where = out.with_name(f"{out.stem}_{lms}.csv")
        writers[lms](grades, roster, args.lms_item, title, where)
        print(f"{lms}: {where}")
    letters: dict[str, int] = {}
    for g in grades:
        letters[g.letter] = letters.get(g.letter, 0) + 1
    print(f"{len(grades)} students by {policy.source}: " + ", ".join(f"{n} {k}" for k, n in letters.items()))
    print(f"final table: {out}; reports: {reports}/<student>.txt; plot: {picture}")
    return 0


def cmd_generate_quiz(args, paths: CoursePaths) -> int:
    from .quiz import generate_quiz

    source, release = generate_quiz(args.week, paths)
    tests = [c for c in grade_cells(source) if c.autograded]
    print(f"quiz: {_rel(source, paths)} ({len(tests)} questions, 1 point each); release: {_rel(release, paths)}")
    return 0


def cmd_demo(args, paths: CoursePaths) -> int:
    from . import sample_class

    demo = CoursePaths(root=paths.root, work=paths.work / "demo", release=paths.release)
    print(f"demo: grading the sample class of {sample_class.LAB} in {demo.work}", flush=True)
    results = sample_class.run_demo(demo, progress=lambda line: print(line, flush=True))
    print()
    print(format_table(results))
    print("\n" + status_summary(results))
    print(f"feedback: {demo.feedback}/<student>/{sample_class.LAB}/   grades: {demo.work / 'grades.csv'}")
    problems = sample_class.check_expected(results, demo)
    if problems:
        print("\nthe sample class did NOT grade as expected:")
        for p in problems:
            print(f"  - {p}")
        return 1
    print(
        "the sample class graded as expected (perfect: all autograded points; one_wrong: loses "
        "test_average_throughput; untouched: 0; not_json: invalid notebook)"
    )
    return 0


def _rel(path: Path, paths: CoursePaths) -> str:
    try:
        return str(path.relative_to(paths.root))
    except ValueError:
        return str(path)


COMMANDS = {
    "generate": cmd_generate,
    "validate": cmd_validate,
    "autograde": cmd_autograde,
    "feedback": cmd_feedback,
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
