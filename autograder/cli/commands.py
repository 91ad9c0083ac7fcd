"""What each subcommand does once its arguments are parsed, and the tables it prints."""

from __future__ import annotations

import sys
from datetime import timezone
from pathlib import Path

from ..classroom import similarity
from ..classroom.lms import import_download
from ..classroom.similarity_report import similarity_report
from ..grading.autograde import autograde_class
from ..grading.scheduler import default_jobs
from ..lab_settings import limits_for
from ..labs import CourseError, grade_cells, list_labs
from ..paths import CoursePaths
from ..pipeline.export import export_grades
from ..pipeline.feedback import feedback_lab
from ..pipeline.generate import generate_lab
from ..pipeline.validate import validate_lab
from ..records import GradeResult, StatusStore, scored_in_gradebook


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
        from ..grading.slurm import SlurmOptions

        slurm = SlurmOptions.from_env(args.partition, args.account, args.sbatch_option, args.slurm_gpu_option)
    elif args.partition or args.account or args.sbatch_option or args.slurm_gpu_option:
        raise CourseError("--partition, --account, --sbatch-option and --slurm-gpu-option are for --backend slurm")
    jobs = args.jobs or (None if slurm else default_jobs())
    if jobs is not None and jobs < 1:
        raise CourseError("--jobs must be at least 1")
    if args.jobs_per_gpu < 1 or (args.gpus is not None and args.gpus < 0):
        raise CourseError("--jobs-per-gpu must be at least 1 and --gpus at least 0")
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
    extensions = {}
    if args.due:
        from nbgrader.utils import parse_utc

        from ..classroom.policy import load_policy

        due = parse_utc(args.due).replace(tzinfo=timezone.utc)
        extensions = load_policy(args.policy).due_times(args.lab, due)
        for sid, when in sorted(extensions.items()):
            print(f"extension: {sid} is due {when.astimezone(timezone.utc):%Y-%m-%d %H:%M} UTC", flush=True)
    results = autograde_class(
        args.lab,
        submissions,
        paths,
        progress=lambda line: print(line, flush=True),
        jobs=jobs,
        students=args.student,
        force=args.force,
        due=args.due,
        extensions=extensions,
        bar=True,
        slurm=slurm,
        gpus=args.gpus,
        jobs_per_gpu=args.jobs_per_gpu,
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
        from ..isolation import sandbox

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


def cmd_similarity(args, paths: CoursePaths) -> int:
    threshold = similarity.DEFAULT_THRESHOLD if args.threshold is None else args.threshold
    if not 0 < threshold <= 1:
        raise CourseError(f"--threshold {threshold}: give a share between 0 and 1, e.g. 0.6")
    root = Path(args.submissions) if args.submissions else paths.submitted
    if not root.is_dir():
        raise CourseError(f"no folder {root}: give the folder of <student>/<notebook>.ipynb to compare")
    report = similarity_report(args.lab, root, paths, threshold, Path(args.out) if args.out else None)
    print(
        f"{report.compared} submissions of {args.lab} compared in {report.seconds:.1f} s: "
        f"{len(report.flagged)} pairs at or above {threshold:.0%}, {len(report.clusters)} groups of more than two"
    )
    for p in report.flagged[:20]:
        print(f"  {p.similarity:4.0%}  {p.a} and {p.b} ({p.overlap_chars} characters in common)")
    for sid, why in sorted(report.not_compared.items()):
        print(f"  not compared: {sid}: {why}")
    print(f"report: {report.html}\nCSV:    {report.csv}")
    print("the report is evidence for a person to read, not a finding of misconduct")
    return 0


def cmd_export(args, paths: CoursePaths) -> int:
    if args.scores:
        from ..classroom.lab_scores import export_scores

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
    from ..classroom.course_grades import course_grades, item_order, read_scores, write_final_csv, write_reports
    from ..classroom.grade_exports import plot_grades, write_brightspace, write_canvas
    from ..classroom.lms import read_roster
    from ..classroom.policy import load_policy

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
    from ..classroom.quiz import generate_quiz

    source, release = generate_quiz(args.week, paths)
    tests = [c for c in grade_cells(source) if c.autograded]
    print(f"quiz: {_rel(source, paths)} ({len(tests)} questions, 1 point each); release: {_rel(release, paths)}")
    return 0


def cmd_demo(args, paths: CoursePaths) -> int:
    from .. import sample_class

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
