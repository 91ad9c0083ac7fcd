"""One Slurm array task: ``python -m autograder.grading.slurm_task TASKS.json`` runs the worker of task ``$SLURM_ARRAY_TASK_ID``.

``TASKS.json`` (written by :func:`autograder.grading.slurm.submit`) lists, per array
index, the student, the job folder and the environment the local backend would
give the worker. The worker's soft deadline counts from the moment the task
starts, not from submission: a task can wait in the queue.
"""

from __future__ import annotations

import json
import os
import sys
import time

from . import worker
from .job import DEADLINE_ENV


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or "SLURM_ARRAY_TASK_ID" not in os.environ:
        raise SystemExit("usage: python -m autograder.grading.slurm_task TASKS.json (inside a Slurm array task)")
    with open(argv[0]) as f:
        entry = json.load(f)[int(os.environ["SLURM_ARRAY_TASK_ID"])]
    os.environ.update(entry["env"])
    os.environ[DEADLINE_ENV] = str(time.time() + entry["soft_limit_s"])
    return worker.main(["--lab", entry["lab"], "--student", entry["student"], "--job", entry["job"]])


if __name__ == "__main__":
    sys.exit(main())
