"""The batch: the one place that starts, polls and kills grading workers.

Each submission is graded by a worker process of its own
(:mod:`autograder.grading.worker`): forked from this process after it imported
nbgrader once, or started as ``python -m autograder.grading.worker`` with
``HPML_WORKER_START=subprocess``; either way in a new session, so that the
per-notebook wall limit kills the worker, its kernel and whatever they
started (:func:`kill_job`). At most ``jobs`` run at once; each kernel gets its
share of the cores as thread caps (:func:`kernel_threads`). The caller turns
each finished worker into a result, with Ctrl-C held for that moment
(:func:`interrupts_deferred`), so an interrupted run records a student fully or
not at all.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from ..isolation import gpus, sandbox
from ..isolation.processes import kill_job
from ..limits import Limits, soft_limit_margin_s
from ..paths import CoursePaths
from ..pipeline.nbgrader_app import ENV_FOR_KERNELS
from . import worker
from .job import DEADLINE_ENV, GRADEBOOK, WORKER_OUT, Progress

WALL_GRACE_S = 30.0  # the main process kills a worker this long after the kernel's own notebook limit


@dataclass
class GradingTask:
    """One submission to grade: where it is, and what the main process prepared for its worker."""

    student_id: str
    notebooks: dict[str, Path]
    note: str = ""
    folder: Path | None = None
    timestamp: Path | None = None
    # nbgrader's key for this submission's feedback in the exchange (``release_feedback``)
    secret: Path | None = None
    problem: str = ""
    sub_hash: str = ""
    extension: timedelta | None = None  # more time than the lab's due date (the policy's [[extensions]])
    # set when its worker runs
    job: Path | None = None
    proc: subprocess.Popen | None = None
    started: float = 0.0
    ended: float = 0.0
    killed: bool = False
    slot: int = 0  # which of the ``jobs`` places it runs in (its GPU, when the lab uses one)


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Hold Ctrl-C while a result is merged and recorded (it takes effect right after)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending = []
    old = signal.signal(signal.SIGINT, lambda *a: pending.append(a))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
        if pending:
            raise KeyboardInterrupt


THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS")


def kernel_threads(jobs: int) -> dict[str, str]:
    """Thread caps for each grading kernel: the cores shared among ``jobs`` kernels (at least 1), and OpenMP
    threads that sleep rather than spin while they wait (``OMP_WAIT_POLICY=PASSIVE``).

    Without the caps every kernel starts one thread per core, and ``jobs`` kernels
    oversubscribe the machine: busy-waiting OpenMP threads (Numba's ``parallel=True``,
    torch) then starve each other and ratio tests measure the contention. A kernel
    never has the machine to itself (other kernels, the student's own ranks, a notebook
    that calls ``torch.set_num_threads``), and a spinning thread burns the core that the
    thread it waits for needs: week 11's notebook beside two CPU burners took 94 s with
    libgomp's default policy and 18.5 s with the passive one (15.7 s alone).
    """
    threads = str(max(1, default_jobs() // max(1, jobs)))
    return {name: threads for name in THREAD_VARIABLES} | {"OMP_WAIT_POLICY": "PASSIVE"}


def stage_submission(task: GradingTask, dest: Path) -> None:
    """Put the task's notebooks and nbgrader's files in ``dest`` (``submitted/<student>/<lab>``), and nothing else.

    The folder is built afresh, so that no file of an earlier hand-in (its
    ``timestamp.txt``) carries over; beside the old one first, because the
    student's files may be inside it (grading ``submitted/`` again).
    """
    fresh = dest.with_name(f".{dest.name}.new")
    if fresh.exists():
        shutil.rmtree(fresh)
    fresh.mkdir(parents=True)
    for name, path in task.notebooks.items():
        shutil.copyfile(path, fresh / f"{name}.ipynb")
    if task.timestamp is not None:
        shutil.copyfile(task.timestamp, fresh / "timestamp.txt")
    if task.secret is not None:
        shutil.copyfile(task.secret, fresh / "submission_secret.txt")
    if dest.exists():
        shutil.rmtree(dest)
    fresh.rename(dest)


def prepare_job(
    lab: str, task: GradingTask, paths: CoursePaths, snapshot: Path, limits: Limits, jobs: int = 1
) -> dict[str, str]:
    """Make the task's job folder (a copy of the gradebook, the submission in ``submitted/``); return the
    worker's environment (course, grading folder, limits, thread caps), without its deadline."""
    job = paths.work / "jobs" / lab / task.student_id
    if job.exists():
        shutil.rmtree(job)
    job.mkdir(parents=True)
    shutil.copyfile(snapshot, job / GRADEBOOK)
    stage_submission(task, paths.submitted / task.student_id / lab)
    env = dict(os.environ, HPML_COURSE_ROOT=str(paths.root), HPML_GRADING_DIR=str(paths.work), **ENV_FOR_KERNELS)
    for name in (gpus.GPU_ENV, gpus.SHARED_ENV):  # only the batch hands out GPUs (start_worker)
        env.pop(name, None)
    env.update(kernel_threads(jobs))
    limits.to_env(env)  # the worker, its nbgrader and its kernel launcher all read the limits from here
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    task.job = job
    return env


def start_worker(
    lab: str,
    task: GradingTask,
    paths: CoursePaths,
    snapshot: Path,
    limits: Limits,
    jobs: int = 1,
    gpu: str | None = None,
    shared: int = 1,
) -> None:
    """Prepare the task's job folder and start its worker (forked, or ``python -m autograder.grading.worker``).

    ``gpu``: the GPU its kernel may use (as its device 0); ``shared``: how many students may use it at once.
    """
    env = prepare_job(lab, task, paths, snapshot, limits, jobs)
    if gpu is not None:
        env[gpus.GPU_ENV] = gpu
        if shared > 1:
            env[gpus.SHARED_ENV] = str(shared)
    job = task.job
    # the worker stops sending cells at this soft limit and saves the grades of what ran, before the hard kill
    env[DEADLINE_ENV] = str(time.time() + limits.notebook_timeout_s - soft_limit_margin_s(limits))
    task.started = time.perf_counter()
    if worker_start_method() == "fork":
        task.proc = ForkedWorker.start(worker.child_main, lab, task.student_id, str(job), env)
        return
    cmd = [
        sys.executable,
        "-m",
        "autograder.grading.worker",
        "--lab",
        lab,
        "--student",
        task.student_id,
        "--job",
        str(job),
    ]
    with open(job / WORKER_OUT, "wb") as out:
        task.proc = subprocess.Popen(
            cmd,
            cwd=str(job),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def run_workers(
    lab: str,
    tasks: list[GradingTask],
    paths: CoursePaths,
    snapshot: Path,
    limits: Limits,
    jobs: int,
    on_finished: Callable[[GradingTask], None],
    gpu_ids: list[str] = (),
    jobs_per_gpu: int = 1,
) -> None:
    """Grade ``tasks`` with up to ``jobs`` workers; call ``on_finished`` (Ctrl-C held) as each one ends.

    With ``gpu_ids``, worker place ``k`` (of ``jobs``) uses GPU ``gpu_ids[k // jobs_per_gpu]``: at most
    ``jobs_per_gpu`` students share one GPU (the caller keeps ``jobs`` <= GPUs x ``jobs_per_gpu``).

    A worker still running ``WALL_GRACE_S`` after the notebook's wall limit is
    killed (``task.killed``). Every finished worker's processes are swept
    (a kernel can leave children behind) and its job folder removed after
    ``on_finished``. On Ctrl-C the running workers are killed and nothing of
    theirs is recorded: the next run grades them.
    """
    queue, running, finished = list(tasks), [], []
    free = list(range(jobs))
    shared = min(jobs_per_gpu, jobs)

    def fill() -> None:
        while queue and len(running) < jobs:
            task = queue.pop(0)
            task.slot = free.pop(0)
            gpu = gpus.assign(task.slot, gpu_ids, jobs_per_gpu)
            start_worker(lab, task, paths, snapshot, limits, jobs, gpu, shared)
            running.append(task)

    try:
        while queue or running:
            fill()
            time.sleep(0.02)
            for task in list(running):
                over = time.perf_counter() - task.started > limits.notebook_timeout_s + WALL_GRACE_S
                if task.proc.poll() is None and not over:
                    continue
                kernel = Progress.read(task.job).kernel_pid
                task.killed = task.proc.poll() is None
                kill_job(task.proc, kernel)  # also sweeps what a finished kernel left running
                task.ended = time.perf_counter()
                running.remove(task)
                free.append(task.slot)
                free.sort()
                finished.append(task)
            if finished:
                fill()  # the next workers start first: merging overlaps with their kernels
            while finished:
                task = finished.pop(0)
                try:
                    with interrupts_deferred():  # merge and record, or neither
                        on_finished(task)
                finally:
                    shutil.rmtree(task.job, ignore_errors=True)
    finally:
        for task in running + finished:
            kill_job(task.proc)
            shutil.rmtree(task.job, ignore_errors=True)
        sandbox.remove_leftovers()  # what killed workers' kernels left (each new kernel also removes them)


def worker_start_method() -> str:
    """How workers start: ``fork`` (default: forked from this process, which imported nbgrader once) or
    ``subprocess`` (``python -m autograder.grading.worker``, a fresh interpreter each, about 3 s slower a submission).
    ``$HPML_WORKER_START`` chooses."""
    method = os.environ.get("HPML_WORKER_START", "").strip().lower() or "fork"
    if method not in ("fork", "subprocess"):
        raise ValueError(f"HPML_WORKER_START={method!r}: expected fork or subprocess")
    if method == "fork" and not hasattr(os, "fork"):
        return "subprocess"
    return method


def preload_worker_modules() -> None:
    """Import what a worker needs before forking it, once, so that no worker pays for it."""
    import importlib

    for name in worker.PRELOAD:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    with contextlib.suppress(Exception):  # probe bubblewrap once here: forked workers inherit the answer
        sandbox.isolation_level()


class ForkedWorker:
    """A worker forked from this process, behind the part of ``Popen``'s interface the batch uses."""

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None

    @classmethod
    def start(cls, target, *args) -> ForkedWorker:
        preload_worker_modules()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the worker: never returns into the caller's code
            code = 1
            try:
                target(*args)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except BaseException:  # noqa: BLE001 - a forked child must reach os._exit, never the parent's code
                with contextlib.suppress(Exception):
                    traceback.print_exc()
            finally:
                os._exit(code)
        return cls(pid)

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                self.returncode = -9
                return self.returncode
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                break
            time.sleep(0.01)
        return self.returncode


def default_jobs() -> int:
    """The usable cores of this machine (its CPU affinity, where the platform says)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)
