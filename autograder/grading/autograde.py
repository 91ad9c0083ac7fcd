"""``autograde``: grade one submission or a whole class, each student in a worker of their own.

A worker (:mod:`autograder.grading.worker`, started by :mod:`autograder.grading.scheduler`)
runs nbgrader ``autograde`` for one student against a private copy of the
gradebook and writes the autograded notebook into that student's folder. This
process is the only writer of the real gradebook and of ``statuses.json``:
:func:`grade_tasks` merges each finished student's rows
(:func:`~autograder.pipeline.gradebook.merge_submission`, replacing their previous
submission) and only then records the status, with Ctrl-C held for that
moment, so an interrupted run leaves a gradebook the next run completes.
:func:`grade_one` grades one submission the same way; :func:`autograde_class`
grades a folder or zip, skipping unchanged submissions that already have a
final result for the same lab version (unless ``force``).
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import time
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta, timezone
from pathlib import Path, PurePosixPath

from ..isolation.gpus import visible_gpus
from ..lab_settings import Lab, limits_for
from ..labs import CourseError, GradeCellInfo, lab_grade_cells, notebook_names, source_notebooks
from ..limits import Limits
from ..paths import CoursePaths
from ..pipeline import gradebook as gradebook_rows
from ..pipeline.generate import register_lab
from ..pipeline.kernels import ensure_kernels
from ..pipeline.nbgrader_app import environment, open_gradebook
from ..pipeline.verdicts import REFERENCE_ENV
from ..records import FINAL, GRADER_ERROR, INVALID_NOTEBOOK, GradeResult, StatusStore, scored_in_gradebook
from .classify import scored_outcome, unscored_outcome
from .job import GRADEBOOK, LOG, WORKER_OUT, Progress, WorkerResult
from .reference_results import reference_results
from .scheduler import GradingTask, default_jobs, interrupts_deferred, run_workers
from .slurm import SlurmOptions, run_array
from .submissions import (
    STUDENT_ID,
    ArchiveRefused,
    InvalidNotebook,
    Submission,
    discover,
    extract_zip,
    read_notebook,
    unwrap,
)
from .versions import lab_version, submission_hash

ProgressFn = Callable[[str], None]


def finish_task(
    lab: str,
    task: GradingTask,
    paths: CoursePaths,
    limits: Limits,
    cells: list[GradeCellInfo],
    lab_max: float,
    version: str,
) -> GradeResult:
    """Turn a finished (or killed) worker into a :class:`GradeResult`; merge its grades when it scored."""
    job = task.job
    result = WorkerResult.read(job)
    progress = Progress.read(job)
    log_file = paths.logs / lab / f"{task.student_id}.log"
    log_file.parent.mkdir(parents=True, exist_ok=True)
    parts = []
    for name in (LOG, WORKER_OUT):
        try:
            parts.append((job / name).read_text(encoding="utf-8", errors="replace")[-200_000:])
        except OSError:
            continue
    log_file.write_text("\n".join(parts), encoding="utf-8")
    seconds = (task.ended or time.perf_counter()) - task.started

    def done(status: str, score, message: str, failed=(), **extra) -> GradeResult:
        return GradeResult(
            student_id=task.student_id,
            status=status,
            score=score,
            max_score=lab_max,
            message="; ".join(x for x in (message, task.note) if x),
            lab=lab,
            failed_tests=list(failed),
            note=task.note,
            submission_hash=task.sub_hash,
            lab_version=version,
            seconds=round(seconds, 2),
            **extra,
        )

    outcome = unscored_outcome(
        result,
        progress,
        limits,
        killed=task.killed,
        returncode=task.proc.returncode if task.proc else None,
        ended_as=getattr(task.proc, "unexpected", ""),
        ran_s=seconds,
        log_ref=f"(log: {_rel_to(log_file, paths.work)})",
    )
    if outcome is not None:
        gradebook_rows.forget_grading(lab, task.student_id, paths, gradebook_too=True)
        return done(
            outcome.status, outcome.score, outcome.message, in_gradebook=False, timed_out_cells=outcome.timed_out_cells
        )
    with open_gradebook(paths) as gb:  # opened once: merge, then read back what was merged
        gradebook_rows.merge_submission(lab, task.student_id, job / GRADEBOOK, paths, dst=gb)
        own_due = gradebook_rows.set_extension(lab, task.student_id, task.extension, gb)
        scores = gradebook_rows.gradebook_scores(lab, task.student_id, paths, cells, gb=gb)
        late_s = gradebook_rows.seconds_late(lab, task.student_id, paths, gb=gb)
    outcome = scored_outcome(result, limits, late_s, extended_to=own_due)
    graded = done(
        outcome.status,
        scores.score,
        scores.message(outcome.message),
        scores.failed,
        timed_out_cells=outcome.timed_out_cells,
        tampering=list(result.tampering),
        detail=outcome.message,
        in_gradebook=True,
    )
    graded.max_score = scores.max_score
    return graded


def grade_tasks(
    lab: str,
    tasks: list[GradingTask],
    paths: CoursePaths,
    *,
    jobs: int | None = None,
    limits: Limits | None = None,
    on_result: Callable[[GradeResult], None] | None = None,
    bar: bool = False,
    slurm: SlurmOptions | None = None,
    gpus: int | None = None,
    jobs_per_gpu: int = 1,
) -> list[GradeResult]:
    """Grade ``tasks`` with up to ``jobs`` worker processes; the calling process merges every result.

    A lab that uses a GPU (``[needs] gpu``) gets the first ``gpus`` of this machine's GPUs (default: all it
    may use), each shared by at most ``jobs_per_gpu`` students at once; ``jobs`` shrinks to fit.

    With ``slurm``, the workers run as the tasks of one Slurm array job
    (:mod:`autograder.grading.slurm`) instead of processes of this machine.

    Invalid submissions are settled here without a worker. ``on_result`` is
    called (with Ctrl-C held) right after each result is merged, in the order
    the workers finish; the return value follows the order of ``tasks``.
    """
    from tqdm.auto import tqdm

    jobs = max(1, jobs or (len(tasks) if slurm is not None else default_jobs()))
    uses_gpu = Lab.load(lab, paths).needs.gpu != "no"
    gpu_ids = visible_gpus()[: None if gpus is None else max(0, gpus)] if uses_gpu and slurm is None else []
    if gpu_ids and jobs > len(gpu_ids) * jobs_per_gpu:
        jobs = len(gpu_ids) * jobs_per_gpu
        tqdm.write(f"{lab} uses a GPU: {jobs} student(s) at a time ({len(gpu_ids)} GPU(s) x {jobs_per_gpu} each)")
    limits = limits or limits_for(lab)
    cells = lab_grade_cells(lab, paths)
    lab_max = sum(c.points for c in cells)
    version = lab_version(lab, paths, limits)
    results: dict[str, GradeResult] = {}
    progress = tqdm(total=len(tasks), desc=f"grading {lab}", unit="nb", disable=not bar, leave=False)

    def settle(result: GradeResult) -> None:
        with interrupts_deferred():
            results[result.student_id] = result
            if on_result:
                on_result(result)
        progress.update(1)

    def finished(task: GradingTask) -> None:
        try:
            result = finish_task(lab, task, paths, limits, cells, lab_max, version)
        except Exception as exc:  # noqa: BLE001 - a grader bug must not stop the batch
            try:
                gradebook_rows.forget_grading(lab, task.student_id, paths, gradebook_too=True)
            except Exception:  # noqa: BLE001 - the error below is what the instructor needs to see
                pass
            result = GradeResult(
                task.student_id, GRADER_ERROR, None, lab_max, f"{type(exc).__name__}: {exc}", lab=lab, note=task.note
            )
        settle(result)

    pending = []
    for task in tasks:
        problem = task.problem
        if not problem:
            try:
                for path in task.notebooks.values():
                    read_notebook(path)
            except InvalidNotebook as exc:
                problem = str(exc)
        if problem:
            if STUDENT_ID.match(task.student_id):
                gradebook_rows.forget_grading(lab, task.student_id, paths, gradebook_too=True)
            settle(
                GradeResult(
                    task.student_id,
                    INVALID_NOTEBOOK,
                    0.0,
                    lab_max,
                    "; ".join(x for x in (problem, task.note) if x),
                    lab=lab,
                    note=task.note,
                    submission_hash=task.sub_hash,
                    lab_version=version,
                    in_gradebook=False,
                )
            )
        else:
            pending.append(task)
    try:
        if pending:
            if not gradebook_rows.lab_registered(lab, paths):
                register_lab(lab, paths)
            snapshot = gradebook_rows.snapshot_gradebook(lab, paths)
            for task in pending:
                gradebook_rows.forget_grading(lab, task.student_id, paths, gradebook_too=False)
            with _reference_for_workers(reference_results(lab, paths, limits)):
                if slurm is not None:
                    run_array(lab, pending, paths, snapshot, limits, jobs, finished, slurm, tqdm.write, uses_gpu)
                else:
                    run_workers(lab, pending, paths, snapshot, limits, jobs, finished, gpu_ids, jobs_per_gpu)
    finally:
        progress.close()
    return [results[t.student_id] for t in tasks if t.student_id in results]


def _reference_for_workers(path: Path | None) -> contextlib.AbstractContextManager[None]:
    """Workers (forked or Slurm tasks) inherit where the reference's records are; their kernels never do."""
    return environment({REFERENCE_ENV: str(path)}) if path is not None else contextlib.nullcontext()


def grade_one(
    lab: str,
    student_id: str,
    notebook_path: Path | str | Mapping[str, Path | str] | None,
    *,
    paths: CoursePaths | None = None,
    note: str = "",
) -> GradeResult:
    """Autograde one student's submission of ``lab`` in a worker process; never raises for a bad submission.

    ``notebook_path`` is the student's notebook (for a lab with several
    notebooks: a mapping from notebook name to file; ``None``: nothing found).
    The file is checked first (``invalid notebook`` if it is not a notebook),
    copied to ``submitted/<student>/<lab>/<name>.ipynb`` and graded; earlier
    results of this student for this lab are replaced. The caller records the
    result (:class:`StatusStore`).
    """
    paths = paths or CoursePaths.from_env()
    if not STUDENT_ID.match(student_id):
        raise ValueError(f"not a usable student id: {student_id!r}")
    names = notebook_names(lab, paths)
    if notebook_path is None:
        mapping: dict[str, Path] = {}
    elif isinstance(notebook_path, Mapping):
        mapping = {k: Path(v) for k, v in notebook_path.items()}
    else:
        mapping = {names[0]: Path(notebook_path)}
    unknown = set(mapping) - set(names)
    if unknown:
        raise ValueError(f"{lab} has no notebook(s) {sorted(unknown)}; it has {names}")
    problem = "" if mapping else "no notebook found (expected " + ", ".join(f"{n}.ipynb" for n in names) + ")"
    task = GradingTask(student_id, mapping, note=note, problem=problem, sub_hash=submission_hash(mapping))
    return grade_tasks(lab, [task], paths, jobs=1)[0]


def find_submissions(lab: str, source: Path | str, paths: CoursePaths) -> list[Submission]:
    """Students' submissions of ``lab`` in a folder or a .zip (extracted into the grading folder).

    A member of the zip that was left out (:func:`~autograder.grading.submissions.extract_zip`) refuses the
    student whose folder held it; one outside every student's folder is named on stderr.
    """
    source = Path(source)
    if not source.exists():
        raise CourseError(f"{source} does not exist")
    if source.is_file():
        if source.suffix.lower() != ".zip":
            raise CourseError(f"{source}: expected a folder or a .zip of <student_id>/<notebook>.ipynb")
        try:
            extracted = extract_zip(source, paths.work / "incoming" / lab, lab)
        except ArchiveRefused as exc:
            raise CourseError(str(exc)) from None
        subs = discover(extracted.root, notebook_names(lab, paths), extracted.refused)
        students = {s.student_id for s in subs}
        for member, why in extracted.refused.items():
            parts = PurePosixPath(member).parts
            if len(parts) < 2 or parts[0] not in students:
                print(f"{source.name}: left out {member!r} ({why})", file=sys.stderr)
        return subs
    if any(_inside(source, d) for d in (paths.submitted, paths.autograded, paths.feedback)):
        # grading rewrites those folders: work from a copy
        incoming = paths.work / "incoming" / lab
        if incoming.exists():
            shutil.rmtree(incoming)
        shutil.copytree(source, incoming, symlinks=True)  # links are refused by discover, never followed
        root = unwrap(incoming, lab)
    else:
        root = unwrap(source, lab)
    return discover(root, notebook_names(lab, paths))


def autograde_class(
    lab: str,
    source: Path | str,
    paths: CoursePaths | None = None,
    progress: ProgressFn | None = print,
    *,
    jobs: int | None = None,
    students: list[str] | None = None,
    force: bool = False,
    due: str | None = None,
    extensions: dict[str, datetime] | None = None,
    bar: bool = False,
    slurm: SlurmOptions | None = None,
    gpus: int | None = None,
    jobs_per_gpu: int = 1,
) -> list[GradeResult]:
    """Grade every submission in ``source`` (folder or zip) with ``jobs`` worker processes (default: the cores).

    Each student is graded by a worker of its own against a private copy of
    the gradebook; this process merges each finished student into the real
    gradebook and then records the status (``statuses.json``, saved after each
    student), so an interrupted run keeps what it finished and the next run
    completes it. A submission whose file and lab version are unchanged since
    a final recorded result is not graded again unless ``force``. ``students``
    limits the run to those ids. Students of the lab that are not graded in
    this run keep their earlier results. ``due`` (ISO date and time, UTC) sets
    the lab's due date for nbgrader's late logic (``timestamp.txt``); ``extensions``
    gives some students their own due time (`Policy.due_times`): they are
    late only after it (nbgrader's per-student extension). ``slurm``:
    grade on a Slurm cluster, one array task per student (``jobs`` at once;
    default: as many as Slurm allows). A lab whose ``[needs]`` this machine lacks
    stops with :class:`CourseError` before anyone is graded (with Slurm, the
    compute nodes are not checked from here).
    """
    paths = paths or CoursePaths.from_env()
    missing = Lab.load(lab, paths).needs.missing() if slurm is None else []
    if missing:
        raise CourseError(f"{lab} cannot be graded on this machine; it needs " + "; and ".join(missing))
    subs = find_submissions(lab, source, paths)
    if students:
        unknown = sorted(set(students) - {s.student_id for s in subs})
        if unknown:
            raise CourseError(f"no submission of {', '.join(unknown)} in {source}")
        subs = [s for s in subs if s.student_id in set(students)]
    ensure_kernels(source_notebooks(lab, paths))
    register_lab(lab, paths)
    if due:
        with open_gradebook(paths) as gb:
            gb.update_or_create_assignment(lab, duedate=due)
    extra_time = _extra_time(due, extensions or {}, {s.student_id for s in subs}, progress)
    limits = limits_for(lab)
    version = lab_version(lab, paths, limits)
    store = StatusStore(paths.statuses)
    tasks, reused = [], {}
    for sub in subs:
        stamp = _nbgrader_file(sub, "timestamp.txt")
        task = GradingTask(
            sub.student_id,
            dict(sub.notebooks),
            note=sub.note,
            folder=sub.folder,
            timestamp=stamp,
            secret=_nbgrader_file(sub, "submission_secret.txt"),
            problem=sub.problem,
            sub_hash=submission_hash(sub.notebooks, stamp),
            extension=extra_time.get(sub.student_id),
        )
        prev = None if force else _skip_reason(lab, task, store, version, paths)
        if prev is not None:
            reused[sub.student_id] = prev
        else:
            tasks.append(task)
    by_id = {s.student_id: s for s in subs}
    count = [len(reused)]
    width = max([len(s.student_id) for s in subs] + [10])

    def record(result: GradeResult) -> None:
        sub = by_id[result.student_id]
        result.notebook = ", ".join(str(p.relative_to(sub.folder)) for p in sub.notebooks.values())
        store.record(result)
        store.save()
        count[0] += 1
        if progress:
            pts = "" if result.score is None else f"{result.score:g}/{result.max_score:g}"
            secs = "" if result.seconds is None else f"({result.seconds:.1f} s)"
            line = f"[{count[0]}/{len(subs)}] {result.student_id:<{width}} {result.status:<16} {pts:>9}  {secs}"
            if bar:
                from tqdm.auto import tqdm

                tqdm.write(line)
            else:
                progress(line)

    if progress and reused:
        progress(
            f"{len(reused)} unchanged submission(s) already graded against this lab version: kept "
            "(--force grades them again)"
        )
    graded = {
        r.student_id: r
        for r in grade_tasks(
            lab,
            tasks,
            paths,
            jobs=jobs,
            limits=limits,
            on_result=record,
            bar=bar,
            slurm=slurm,
            gpus=gpus,
            jobs_per_gpu=jobs_per_gpu,
        )
    }
    return [
        graded.get(s.student_id) or reused[s.student_id]
        for s in subs
        if s.student_id in graded or s.student_id in reused
    ]


def _extra_time(
    due: str | None, extensions: dict[str, datetime], students: set[str], progress: ProgressFn | None
) -> dict[str, timedelta]:
    """How much later than ``due`` each extended student's own due time is; says which are not in this batch."""
    if not extensions:
        return {}
    if not due:
        raise CourseError("extensions need the lab's due date: give --due")
    from nbgrader.utils import parse_utc

    base = parse_utc(due).replace(tzinfo=timezone.utc)
    absent = sorted(set(extensions) - students)
    if absent and progress:
        progress(f"extensions for students with no submission here (nothing to do): {', '.join(absent)}")
    return {sid: when - base for sid, when in extensions.items() if sid in students}


def _skip_reason(
    lab: str, task: GradingTask, store: StatusStore, version: str, paths: CoursePaths
) -> GradeResult | None:
    """The recorded result of an unchanged submission graded against the same lab version, if it is final."""
    prev = store.get(lab, task.student_id)
    if prev is None or prev.status not in FINAL or not prev.submission_hash:
        return None
    if prev.submission_hash != task.sub_hash or prev.lab_version != version:
        return None
    if scored_in_gradebook(prev):
        from nbgrader.api import MissingEntry

        with open_gradebook(paths) as gb:
            try:
                gb.find_submission(lab, task.student_id)
            except MissingEntry:
                return None  # recorded but not in the gradebook: grade it again
    return prev


def _nbgrader_file(sub: Submission, name: str) -> Path | None:
    """A file ``nbgrader submit`` wrote beside the notebooks (``timestamp.txt``, ``submission_secret.txt``).

    Looked for in the student's folder, then beside each notebook.
    """
    places = [sub.folder / name] + [Path(p).parent / name for p in sub.notebooks.values()]
    return next((p for p in places if p.is_file()), None)


def _inside(path: Path, folder: Path) -> bool:
    try:
        Path(path).resolve().relative_to(Path(folder).resolve())
        return True
    except ValueError:
        return False


def _rel_to(path: Path, base: Path) -> str:
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)
