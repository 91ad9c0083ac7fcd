"""One Slurm array task: ``python -m autograder.grading.slurm_task TASKS.json`` runs the worker of task ``$SLURM_ARRAY_TASK_ID``.

``TASKS.json`` (written by :func:`autograder.grading.slurm.submit`) lists, per array
index, the student, the job folder and the environment the local backend would
give the worker. The worker's soft deadline counts from the moment the task
starts, not from submission: a task can wait in the queue. A GPU lab's task
hands its kernel the GPU Slurm allocated to it (:func:`allocated_gpu`).
"""

from __future__ import annotations

import json
import os
import sys
import time

from ..isolation import gpus
from . import worker
from .job import DEADLINE_ENV


def allocated_gpu(env: dict) -> str | None:
    """The GPU Slurm gave this task: its first index in ``SLURM_STEP_GPUS``/``SLURM_JOB_GPUS`` (the node's numbering,
    which names the device node), else in ``CUDA_VISIBLE_DEVICES``; None when it gave none."""
    for name in ("SLURM_STEP_GPUS", "SLURM_JOB_GPUS", "CUDA_VISIBLE_DEVICES"):
        first = env.get(name, "").split(",")[0].strip()
        if first and first not in gpus.HIDDEN_VALUES:
            return first
    return None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or "SLURM_ARRAY_TASK_ID" not in os.environ:
        raise SystemExit("usage: python -m autograder.grading.slurm_task TASKS.json (inside a Slurm array task)")
    with open(argv[0]) as f:
        entry = json.load(f)[int(os.environ["SLURM_ARRAY_TASK_ID"])]
    os.environ.update(entry["env"])
    os.environ[DEADLINE_ENV] = str(time.time() + entry["soft_limit_s"])
    gpu = allocated_gpu(os.environ) if entry.get("gpu") else None
    if gpu is not None:
        os.environ[gpus.GPU_ENV] = gpu
    return worker.main(["--lab", entry["lab"], "--student", entry["student"], "--job", entry["job"]])


if __name__ == "__main__":
    sys.exit(main())
