"""One student's grading in a process of its own: ``python -m autograder.grading.worker --lab LAB --student ID --job DIR``.

Started by :mod:`autograder.grading.scheduler` (one worker per submission): forked
from the main process once it has imported nbgrader (:func:`child_main`), or
as ``python -m autograder.grading.worker`` with ``HPML_WORKER_START=subprocess``;
either way in a session of its own, so that the per-notebook wall limit can
kill the worker, its kernel and anything the student's code started, and
Ctrl-C at the terminal reaches only the main process. The kernel runs through
:mod:`autograder.isolation.sandbox` (a scratch folder with a copy of the student's own
files, the lab's limits, bubblewrap when it works).

The worker runs nbgrader ``autograde`` for one student against a **private
copy of the gradebook** (``DIR/gradebook.db``, copied by the main process
after the lab was registered), so workers never share a sqlite file; the main
process is the only writer of the real gradebook and merges this student's
rows from the copy. The submission is already in ``submitted/<student>/<lab>/``;
the autograded notebook goes to ``autograded/<student>/<lab>/`` as with plain
nbgrader. The limits come from the environment (:meth:`Limits.from_env`, put
there by the main process); what the worker found goes to ``DIR/result.json``
(:class:`autograder.grading.job.WorkerResult`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
import traceback
from pathlib import Path

from ..isolation import gpus, memory, sandbox, tamper
from ..labs import cell_label, notebook_names
from ..limits import Limits
from ..paths import CoursePaths
from ..pipeline.edited_cells import submission_changes
from ..pipeline.nbgrader_app import COURSE_ID, kernel_env, load_config, run_nbgrader
from ..pipeline.verdicts import REFERENCE_ENV
from .execute import tracking_execute_class
from .job import GRADEBOOK, KERNEL_REPORT, LOG, WORKER_OUT, Progress, WorkerResult, kernel_report
from .reference_results import CACHE_ENV


def _error_cells(nb, names: tuple[str, ...]) -> list[str]:
    found = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error" and out.get("ename") in names:
                found.append(cell_label(cell, i))
                break
    return found


def unsynced_sqlite() -> None:
    """No fsync on commit for every SQLite database this process opens (this worker's own copy only).

    nbgrader commits some 60 times while it grades one notebook; on a disk each
    commit waits for fsync. The worker's gradebook is a scratch copy that the
    main process merges and then throws away (a crash loses nothing but this
    student's run, which is graded again), so ``synchronous=OFF`` and an
    in-memory journal are safe here. Never call this in the main process,
    which writes the real gradebook.
    """
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    if not event.contains(Engine, "connect", _no_sync):
        event.listen(Engine, "connect", _no_sync)


def _no_sync(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA synchronous=OFF")
    cursor.execute("PRAGMA journal_mode=MEMORY")
    cursor.close()


def grade(lab: str, student_id: str, job: Path) -> WorkerResult:
    """Run nbgrader autograde for one student against ``job/gradebook.db``; return what ``result.json`` holds."""
    import nbformat
    from nbgrader.api import Gradebook
    from nbgrader.converters import Autograde
    from nbgrader.preprocessors import Execute

    from ..pipeline.gradebook import remove_submission

    unsynced_sqlite()
    limits = Limits.from_env()
    paths = CoursePaths.from_env()
    cfg = load_config(paths)
    cfg.CourseDirectory.db_url = f"sqlite:///{job / GRADEBOOK}"
    cfg.Execute.timeout = limits.cell_timeout_s
    configured = (
        cfg.Autograde.get("autograde_preprocessors") or Autograde.class_traits()["autograde_preprocessors"].default()
    )
    base = next((p for p in configured if isinstance(p, type) and issubclass(p, Execute)), Execute)
    execute = tracking_execute_class(job, base, limits.max_output_bytes)
    cfg.Autograde.autograde_preprocessors = [execute if p is base else p for p in configured]
    # the reference's records are the grader's: no kernel of this worker sees where they are
    cfg.JudgeRecordedResults.reference_file = os.environ.pop(REFERENCE_ENV, "")
    os.environ.pop(CACHE_ENV, None)
    with Gradebook(cfg.CourseDirectory.db_url, COURSE_ID) as gb:  # the copy may hold this student's last grading
        remove_submission(gb, lab, student_id)
    submitted = paths.submitted / student_id / lab
    isolation = sandbox_environment(submitted, job)
    names = notebook_names(lab, paths)
    changes = []
    for name in names:
        changes += submission_changes(submitted / f"{name}.ipynb", paths.scratch_release / lab / f"{name}.ipynb")
    with kernel_env():
        run = run_nbgrader(
            Autograde, {"assignment_id": lab, "student_id": student_id}, cfg, force=True, create_student=True
        )
    notes = "".join(f"[grader] {line}\n" for line in device_notes(kernel_report(job)))
    (job / LOG).write_text(notes + run.log + ("\n" + run.error if run.error else ""), encoding="utf-8")
    text = run.log + "\n" + run.error
    died = execute.stopped.get("why") == "died"
    result = WorkerResult(
        success=run.success,
        error="" if run.success else run.last_error(),
        kernel_died=(not run.success and ("DeadKernelError" in text or "Kernel died" in text)) or died,
        dead_cell=execute.stopped.get("cell", "") if died else "",
        stopped=dict(execute.stopped),
        timed_out_cells=list(dict.fromkeys(execute.timed_out)),
        tampering=list(changes),
        isolation=isolation,
        kernel=kernel_report(job),
    )
    if result.kernel_died and not result.dead_cell:
        result.dead_cell = Progress.read(job).cell
    for name in names:
        path = paths.autograded / student_id / lab / f"{name}.ipynb"
        if not (run.success and path.exists()):
            continue
        nb = nbformat.read(path, as_version=4)
        result.memory_error_cells += _error_cells(nb, ("MemoryError",))
        result.tampering += tamper.find_tampering(nb)
    return result


def device_notes(kernels: list[dict]) -> list[str]:
    """What the student's log says about the GPU and the memory limit its kernel ran with."""
    notes = []
    gpu = os.environ.get(gpus.GPU_ENV)
    if gpu is not None:
        notes.append(f"graded on GPU {gpu} (the kernel's CUDA device 0)")
        shared = int(os.environ.get(gpus.SHARED_ENV, "1") or 1)
        if shared > 1:
            notes.append(
                f"GPU {gpu} was shared by up to {shared} students graded at once: its speed tests measured a shared GPU"
            )
    for how in dict.fromkeys(k.get("memory") for k in kernels):
        if how == memory.UNLIMITED:
            notes.append(f"memory was NOT limited: {memory.UNLIMITED_WHY}")
        elif how in (memory.CGROUP, memory.SYSTEMD_SCOPE):
            notes.append(f"memory limit on resident memory: {how}")
    return notes


def sandbox_environment(submitted: Path, job: Path) -> str:
    """Point the sandboxed kernel at this student's scratch folder; return the isolation level in words.

    The scratch folder holds a copy of the student's files as submitted (no
    hidden tests); the kernel runs there.
    """
    scratch = sandbox.prepare_scratch(submitted, job / "scratch")
    os.environ[sandbox.SCRATCH_ENV] = str(scratch)
    os.environ[sandbox.REPORT_ENV] = str(job / KERNEL_REPORT)
    return sandbox.isolation_level()


#: what the main process imports once before forking workers, so that none of them pays for it (about 3 s each)
PRELOAD = [
    "autograder.grading.worker",
    "autograder.grading.execute",
    "autograder.isolation.sandbox",
    "autograder.isolation.tamper",
    "nbgrader.converters",
    "nbgrader.api",
    "nbgrader.preprocessors",
    "nbgrader.coursedir",
    "nbformat",
    "nbclient",
    "nbconvert",
    "jupyter_client",
    "sqlalchemy",
]


def child_main(lab: str, student_id: str, job: str, env: dict) -> None:
    """Entry point of a worker forked from the main process (see :mod:`autograder.grading.scheduler`): the same as :func:`main`.

    It leaves the main process's session (a session and process group of its
    own, which the wall limit kills, and which Ctrl-C at the terminal does not
    reach), writes its output to ``job/worker.out`` and takes the environment
    the main process prepared.
    """
    import signal

    os.setsid()
    _fresh_event_loop()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    fd = os.open(os.path.join(job, WORKER_OUT), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    os.chdir(job)
    os.environ.clear()
    os.environ.update(env)
    sys.exit(main(["--lab", lab, "--student", student_id, "--job", job]))


def _fresh_event_loop() -> None:
    """Give this forked worker an asyncio loop of its own for the kernel client.

    The loop inherited from the main process shares its epoll instance with the
    main process (and its thread pool has no threads left after the fork). It is
    left alone, never closed: closing it would unregister the main process's
    own file descriptors from that shared epoll and leave its loop deaf.
    """
    import asyncio

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    with contextlib.suppress(Exception):  # jupyter_core's run_sync keeps its own per-thread loop
        from jupyter_core import utils

        utils._loop.set(loop)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autograder.grading.worker",
        description="Grade one student's submission against a private gradebook "
        "(started by `python -m autograder autograde`).",
    )
    parser.add_argument("--lab", required=True)
    parser.add_argument("--student", required=True)
    parser.add_argument("--job", required=True, help="job folder: gradebook.db in, result.json out")
    args = parser.parse_args(argv)
    job = Path(args.job)
    t0 = time.perf_counter()
    try:
        result = grade(args.lab, args.student, job)
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        (job / LOG).write_text(traceback.format_exc(), encoding="utf-8")
        result = WorkerResult(success=False, error=f"{type(exc).__name__}: {exc}", kernel=kernel_report(job))
    result.seconds = time.perf_counter() - t0
    result.write(job)
    return 0


if __name__ == "__main__":
    sys.exit(main())
