"""The Slurm backend of ``autograde --backend slurm``: one array job, one task per student.

Each task runs the same worker as the local backend (:mod:`autograder.grading.worker`,
through :mod:`autograder.grading.slurm_task`), in the same sandbox and under the same
per-lab limits, against its own copy of the gradebook in its job folder; the
main process, on the login node, polls the array and merges each student as
their task ends, exactly as it does for a local worker. The grading folder and
the course environment must be on a file system the compute nodes share.

The lab's limits become the task's resources: ``--time`` is the notebook's wall
limit plus the grace the local backend gives (and a minute to start Python),
``--mem`` the kernel's memory limit plus 1 GiB for the worker and nbgrader,
``--cpus-per-task`` the threads each kernel gets. Partition, account and any
other ``sbatch`` option come from the command line or, for a course, from
``$HPML_SLURM_PARTITION``, ``$HPML_SLURM_ACCOUNT`` and ``$HPML_SLURM_OPTIONS``.
A lab that uses a GPU (``[needs] gpu``) asks for one per task, ``--gres=gpu:1``
by default; a cluster that names GPUs another way sets ``--slurm-gpu-option``
(or ``$HPML_SLURM_GPU_OPTIONS``), e.g. ``--gpus-per-task=1`` or
``--partition=gpu --gres=gpu:a100:1``. The task's worker hands its kernel the
GPU Slurm allocated (``SLURM_JOB_GPUS``, else ``CUDA_VISIBLE_DEVICES``).

How a task ends maps to the student's status: ``TIMEOUT`` is the wall limit
(timed out), ``OUT_OF_MEMORY`` a worker killed for memory (memory limit); a
task ``CANCELLED``, on a failed node, preempted or never started is a grader
error, which the next run grades again. Ctrl-C cancels the array
(``scancel``). Finished tasks are read from ``scontrol show job`` (no
accounting database needed), then from ``sacct`` once slurmctld has forgotten
them.
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..labs import CourseError
from ..limits import Limits
from ..paths import CoursePaths
from .job import WORKER_OUT

RUNNING = {"RUNNING", "COMPLETING", "CONFIGURING", "STAGE_OUT", "SUSPENDED", "RESIZING", "SIGNALING"}
WAITING = {"PENDING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD"}
# a task in one of these states is over; what it means for the student is in :func:`ending`
ENDED = {
    "COMPLETED",
    "FAILED",
    "OUT_OF_MEMORY",
    "TIMEOUT",
    "DEADLINE",
    "CANCELLED",
    "NODE_FAIL",
    "PREEMPTED",
    "BOOT_FAIL",
    "REVOKED",
}
WORKER_MEMORY_MB = 1024  # the worker and nbgrader beside the kernel
GPU_REQUEST = ("--gres=gpu:1",)
START_MARGIN_S = 60  # Python and nbgrader start inside the task


@dataclass(frozen=True)
class SlurmOptions:
    partition: str = ""
    account: str = ""
    extra: tuple[str, ...] = ()  # more sbatch options, e.g. ("--qos=short",)
    poll_s: float = 0.5
    gpu: tuple[str, ...] = GPU_REQUEST  # what a GPU lab's task asks for

    @classmethod
    def from_env(
        cls, partition: str = "", account: str = "", extra: list[str] | None = None, gpu: list[str] | None = None
    ) -> SlurmOptions:
        """Command-line values first, then the course's ``$HPML_SLURM_PARTITION``/``_ACCOUNT``/``_OPTIONS``/
        ``_GPU_OPTIONS``."""
        options = tuple(extra or ()) or tuple(shlex.split(os.environ.get("HPML_SLURM_OPTIONS", "")))
        gpu_options = tuple(gpu or ()) or tuple(shlex.split(os.environ.get("HPML_SLURM_GPU_OPTIONS", "")))
        return cls(
            partition or os.environ.get("HPML_SLURM_PARTITION", ""),
            account or os.environ.get("HPML_SLURM_ACCOUNT", ""),
            options,
            gpu=gpu_options or GPU_REQUEST,
        )


@dataclass
class TaskState:
    """One array task as Slurm reports it."""

    state: str
    exit_code: int | None = None
    signal: int | None = None
    reason: str = ""


@dataclass
class TaskEnd:
    """What the batch needs from a finished task, in the shape of a local worker's end."""

    returncode: int | None
    killed: bool  # over its time limit: the wall limit
    state: str
    reason: str = ""

    @property
    def unexpected(self) -> str:
        """How a task ended that no worker outcome explains (cancelled, node failure...), or ``""``."""
        if self.state in ("COMPLETED", "FAILED", "OUT_OF_MEMORY", "TIMEOUT", "DEADLINE"):
            return ""
        why = f" ({self.reason})" if self.reason and self.reason != "None" else ""
        return f"its Slurm task ended {self.state}{why} before the grading finished, or never started"


def resources(limits: Limits, cpus_per_task: int) -> list[str]:
    """The sbatch resource options that carry the lab's limits (see the module docstring)."""
    from .scheduler import WALL_GRACE_S

    minutes = math.ceil((limits.notebook_timeout_s + WALL_GRACE_S + START_MARGIN_S) / 60)
    return [
        f"--time={minutes}",
        f"--mem={limits.memory_mb + WORKER_MEMORY_MB}M",
        f"--cpus-per-task={cpus_per_task}",
    ]


def ending(state: TaskState) -> TaskEnd:
    """A task's final Slurm state as the batch sees a worker's end (returncode, killed at the wall limit)."""
    if state.state in ("TIMEOUT", "DEADLINE"):
        return TaskEnd(None, True, state.state, state.reason)
    if state.state == "OUT_OF_MEMORY":
        return TaskEnd(-9, False, state.state, state.reason)
    if state.state in ("COMPLETED", "FAILED"):
        code = -state.signal if state.signal else state.exit_code
        return TaskEnd(code, False, state.state, state.reason)
    return TaskEnd(None, False, state.state, state.reason)  # cancelled, node failure, preempted, never started


_FIELD = re.compile(r"(\w+)=(\S*)")


def parse_scontrol(text: str) -> dict[int, TaskState]:
    """``scontrol show job -o JOBID`` -> array index -> state (a pending range ``3-39%2`` gives each index)."""
    states: dict[int, TaskState] = {}
    for line in text.splitlines():
        fields = dict(_FIELD.findall(line))
        task = fields.get("ArrayTaskId", "")
        state = fields.get("JobState", "")
        if not task or not state:
            continue
        entry = TaskState(state, *_exit_code(fields.get("ExitCode", "")), fields.get("Reason", ""))
        for index in _indices(task):
            states[index] = entry
    return states


def parse_sacct(text: str) -> dict[int, TaskState]:
    """``sacct -j JOBID -n -P -X -o JobID,State,ExitCode`` -> array index -> state."""
    states: dict[int, TaskState] = {}
    for line in text.splitlines():
        parts = line.split("|")
        if len(parts) < 3 or "_" not in parts[0]:
            continue
        index = parts[0].split("_", 1)[1]
        state = parts[1].split()[0]  # "CANCELLED by 0"
        entry = TaskState(state, *_exit_code(parts[2]))
        for i in _indices(index.strip("[]")):
            states[i] = entry
    return states


def _exit_code(text: str) -> tuple[int | None, int | None]:
    """Slurm's ``ExitCode`` ``"code:signal"`` -> (exit code, the signal or None when 0)."""
    code, _, sig = text.partition(":")
    return (int(code) if code.isdigit() else None, int(sig) if sig.isdigit() and int(sig) else None)


def _indices(spec: str) -> list[int]:
    """``"4"``, ``"3-39%2"``, ``"1,3,5-7"`` -> the indices."""
    out = []
    for part in spec.split("%")[0].split(","):
        if "-" in part:
            lo, hi = part.split("-", 1)
            if lo.isdigit() and hi.isdigit():
                out.extend(range(int(lo), int(hi) + 1))
        elif part.isdigit():
            out.append(int(part))
    return out


def query(job_id: str) -> dict[int, TaskState]:
    """Every task of the array Slurm still knows about."""
    shown = subprocess.run(["scontrol", "show", "job", "-o", job_id], capture_output=True, text=True)
    states = parse_scontrol(shown.stdout) if shown.returncode == 0 else {}
    if not states and shutil.which("sacct"):
        acct = subprocess.run(
            ["sacct", "-j", job_id, "-n", "-P", "-X", "-o", "JobID,State,ExitCode"], capture_output=True, text=True
        )
        if acct.returncode == 0:
            states = parse_sacct(acct.stdout)
    return states


def submit(
    lab: str,
    entries: list[dict],
    paths: CoursePaths,
    limits: Limits,
    jobs: int,
    cpus: int,
    options: SlurmOptions,
    gpu: bool = False,
) -> str:
    """Write the task list and submit the array (``jobs`` tasks at a time, each with a GPU when ``gpu``);
    return the job id."""
    folder = paths.work / "jobs" / lab
    folder.mkdir(parents=True, exist_ok=True)
    tasks_file = folder / "slurm-tasks.json"
    tasks_file.write_text(json.dumps(entries))
    script = folder / "slurm-array.sh"
    # jsonschema imports rfc3987_syntax for its "iri" format, which builds a grammar on import: 0.8 s of CPU
    # in every task, for a format that no notebook schema uses; the task's Python goes without it
    start = 'import runpy, sys; sys.modules["rfc3987_syntax"] = None; runpy.run_module("autograder.grading.slurm_task", run_name="__main__")'
    script.write_text(
        "#!/bin/bash\n"
        "# one student per array task (written by python -m autograder autograde --backend slurm)\n"
        f"exec {shlex.quote(sys.executable)} -c {shlex.quote(start)} {shlex.quote(str(tasks_file))}\n"
    )
    script.chmod(0o755)
    (folder / "slurm-out").mkdir(exist_ok=True)
    command = [
        "sbatch",
        "--parsable",
        f"--array=0-{len(entries) - 1}%{max(1, jobs)}",
        f"--job-name=hpml-{lab}",
        f"--output={folder / 'slurm-out' / '%a.out'}",
        f"--chdir={paths.work}",
        "--export=ALL",
        *resources(limits, cpus),
        *([f"--partition={options.partition}"] if options.partition else []),
        *([f"--account={options.account}"] if options.account else []),
        *(options.gpu if gpu else ()),
        *options.extra,
        str(script),
    ]
    done = subprocess.run(command, capture_output=True, text=True, cwd=paths.root)
    if done.returncode != 0:
        raise CourseError(f"sbatch refused the grading array: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout.strip().split(";")[0]


def cancel(job_id: str) -> None:
    subprocess.run(["scancel", job_id], capture_output=True)


def wait_for_tasks(
    job_id: str,
    tasks: list,
    on_started: Callable[[object], None],
    on_ended: Callable[[object, TaskEnd], None],
    poll_s: float = 0.5,
    say: Callable[[str], None] | None = None,
) -> None:
    """Poll the array until every task has ended; call back as each starts and ends (in this process)."""
    left = dict(enumerate(tasks))
    started: set[int] = set()
    last_note = time.monotonic()
    unknown_polls = 0
    while left:
        states = query(job_id)
        unknown_polls = 0 if states else unknown_polls + 1
        if unknown_polls > 20:  # Slurm no longer knows the job (purged, or the controller restarted)
            for task in left.values():
                on_ended(task, TaskEnd(None, False, "LOST", "Slurm no longer knows the task"))
            return
        for index, task in list(left.items()):
            state = states.get(index)
            if state is None:
                continue
            if (state.state in RUNNING or state.state in ENDED) and index not in started:
                started.add(index)
                on_started(task)
            if state.state in ENDED:
                del left[index]
                on_ended(task, ending(state))
        if say and time.monotonic() - last_note > 60:
            # JobArrayTaskLimit is the --jobs cap itself, not a reason to worry
            waiting = sorted(
                {s.reason for i, s in states.items() if i in left and s.state in WAITING} - {"", "JobArrayTaskLimit"}
            )
            if waiting:
                say(f"slurm: {len(left)} task(s) not finished; pending because: {', '.join(waiting)}")
            last_note = time.monotonic()
        if left:
            time.sleep(poll_s)


def run_array(
    lab: str,
    tasks: list,
    paths: CoursePaths,
    snapshot: Path,
    limits: Limits,
    jobs: int,
    on_finished: Callable[[object], None],
    options: SlurmOptions,
    say: Callable[[str], None] | None = None,
    gpu: bool = False,
) -> None:
    """Grade ``tasks`` as one array job, a GPU per task when ``gpu``; call ``on_finished`` (Ctrl-C held) as each
    task ends.

    The counterpart of :func:`autograder.grading.scheduler.run_workers`: the same job
    folders and worker environment, submitted with ``sbatch`` instead of forked.
    On Ctrl-C (or any error) the array is cancelled and nothing of the running
    tasks is recorded: the next run grades them.
    """
    from ..limits import soft_limit_margin_s
    from .scheduler import interrupts_deferred, kernel_threads, prepare_job

    cpus = int(kernel_threads(jobs)["OMP_NUM_THREADS"])
    entries = []
    for task in tasks:
        env = prepare_job(lab, task, paths, snapshot, limits, jobs)
        changed = {k: v for k, v in env.items() if os.environ.get(k) != v}  # the rest comes with --export=ALL
        soft = limits.notebook_timeout_s - soft_limit_margin_s(limits)
        entries.append(
            {
                "lab": lab,
                "student": task.student_id,
                "job": str(task.job),
                "env": changed,
                "soft_limit_s": soft,
                "gpu": gpu,
            }
        )
    job_id = submit(lab, entries, paths, limits, jobs, cpus, options, gpu)
    if say:
        say(f"slurm: array job {job_id}, {len(tasks)} task(s), at most {jobs} at once")

    def started(task) -> None:
        task.started = time.perf_counter()

    def ended(task, end: TaskEnd) -> None:
        task.ended = time.perf_counter()
        task.started = task.started or task.ended
        task.killed, task.proc = end.killed, end
        out = paths.work / "jobs" / lab / "slurm-out" / f"{tasks.index(task)}.out"
        if out.exists():  # Slurm's own output of the task, kept with the worker's in the student's log
            with open(task.job / WORKER_OUT, "ab") as f:
                f.write(out.read_bytes()[-100_000:])
        try:
            with interrupts_deferred():
                on_finished(task)
        finally:
            shutil.rmtree(task.job, ignore_errors=True)

    finished = False
    try:
        wait_for_tasks(job_id, tasks, started, ended, options.poll_s, say)
        finished = True
    finally:
        if not finished:
            cancel(job_id)
        for task in tasks:
            shutil.rmtree(task.job, ignore_errors=True)
