"""The files a grading worker and the main process exchange in the worker's job folder.

The main process makes ``jobs/<lab>/<student>/`` with a copy of the gradebook
(:data:`GRADEBOOK`) and starts the worker there; the worker keeps
:data:`PROGRESS` up to date while it runs (which cell, the kernel's pid) and
writes :data:`RESULT` when it ends. Both are written here and read here, as
the dataclasses :class:`Progress` and :class:`WorkerResult`.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

PROGRESS = "progress.json"
RESULT = "result.json"
LOG = "nbgrader.log"
GRADEBOOK = "gradebook.db"
KERNEL_REPORT = "kernel.jsonl"
WORKER_OUT = "worker.out"
DEADLINE_ENV = "HPML_NOTEBOOK_DEADLINE"  # the soft wall limit, a Unix time: no cell is sent after it


def write_json(path: Path, data: dict) -> None:
    """Write ``data`` as JSON atomically (a reader never sees half a file)."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
    os.replace(tmp, path)


def read_json(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _from_dict(cls, data: dict):
    known = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in known})


@dataclass
class Progress:
    """The cell a worker is executing, so that a worker killed by the wall limit still tells where it was."""

    cell: str = ""
    index: int = -1
    since: float = 0.0
    kernel_pid: int | None = None
    timed_out: list[str] = field(default_factory=list)  # cells interrupted by the cell limit so far

    def write(self, job: Path) -> None:
        write_json(job / PROGRESS, dataclasses.asdict(self))

    @classmethod
    def read(cls, job: Path) -> Progress:
        """The last progress the worker wrote (empty when it wrote none)."""
        return _from_dict(cls, read_json(job / PROGRESS) or {})


MEMORY_SIGNALS = (6, 9)  # SIGABRT (native code failing to allocate), SIGKILL (an OOM killer)


@dataclass
class WorkerResult:
    """What one worker found; ``stopped`` is ``{"why": "died" | "stuck" | "wall", "cell": ...}`` or empty.

    ``stopped`` says where the cells after one were not run (the kernel died,
    ignored an interrupt, or the notebook reached its soft wall limit); the
    tests before it keep their points. ``kernel`` holds the sandboxed kernel
    manager's exit records (:data:`KERNEL_REPORT`).
    """

    success: bool  # nbgrader finished the notebook
    error: str = ""  # the most telling error line when it did not
    kernel_died: bool = False
    dead_cell: str = ""
    stopped: dict = field(default_factory=dict)
    timed_out_cells: list[str] = field(default_factory=list)
    memory_error_cells: list[str] = field(default_factory=list)
    tampering: list[str] = field(default_factory=list)
    isolation: str = ""
    kernel: list[dict] = field(default_factory=list)
    seconds: float = 0.0

    def write(self, job: Path) -> None:
        write_json(job / RESULT, dataclasses.asdict(self))

    @classmethod
    def read(cls, job: Path) -> WorkerResult | None:
        """The worker's result, or None when it wrote none (it was killed, or crashed before the end)."""
        data = read_json(job / RESULT)
        return None if data is None else _from_dict(cls, data)

    def kernel_signals(self) -> list[int]:
        """Signals that ended the kernel(s), from the kernel manager's records."""
        return [k["signal"] for k in self.kernel if k.get("signal")]

    def memory_signals(self) -> list[int]:
        """Signals that most likely ended the kernel for memory: SIGKILL by a memory cgroup's OOM killer (counted
        by the cgroup), else SIGABRT or SIGKILL (native code failing to allocate, the machine's OOM killer)."""
        if any(k.get("oom_kills") for k in self.kernel):
            return [9]
        return [s for s in self.kernel_signals() if s in MEMORY_SIGNALS]

    def killed_for(self) -> str | None:
        """Why the kernel manager killed the kernel (``"notebook_timeout"``), if it did."""
        return next((k["killed_for"] for k in self.kernel if k.get("killed_for")), None)


def kernel_report(job: Path) -> list[dict]:
    """The sandboxed kernel manager's exit records (exit code or signal, ``killed_for``...), one per kernel."""
    try:
        lines = (job / KERNEL_REPORT).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out
