"""Resource limits of one student's grading kernel, with per-lab overrides (issue 3, isolation).

One :class:`Limits` per lab: :func:`limits_for` starts from the defaults and
applies that lab's entry of :data:`LAB_OVERRIDES` (edit that one dict to give a
lab more time or memory). A grading worker passes them to the kernel launcher
as JSON (:meth:`Limits.to_json` / :meth:`Limits.from_json`, or through the
environment variable :data:`ENV_VAR` with :meth:`Limits.to_env` /
:meth:`Limits.from_env`).

Who enforces what (see ``autograder/sandbox.py`` for the whole guarantee):

- ``cell_timeout_s``, ``notebook_timeout_s``: the grader (nbgrader's
  ``Execute.timeout`` per cell; the pipeline per notebook).
- ``memory_mb``: ``RLIMIT_AS`` of the kernel and of every process it starts
  (address space, so slightly stricter than resident memory; importing numpy,
  torch, numba and matplotlib needs about 1 GB of it). Over it, allocations
  fail: Python raises ``MemoryError``, or native code aborts and the kernel dies.
- ``max_processes``: tasks (processes and threads) the kernel may have at once.
  Linux does not enforce ``RLIMIT_NPROC`` for root, so as root the launcher
  puts the kernel in a fresh ``pids`` cgroup with ``pids.max`` set to this
  (when ``/sys/fs/cgroup`` is writable); as another user it sets
  ``RLIMIT_NPROC`` to the tasks that user already has plus this.
- ``max_output_bytes``: outputs of one notebook; the pipeline cuts them.
- ``max_file_bytes``: ``RLIMIT_FSIZE``: no file written larger than this
  (the write fails with ``OSError: [Errno 27] File too large``).
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass

ENV_VAR = "HPML_SANDBOX_LIMITS"
MiB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """Limits of one grading kernel (seconds, MiB, counts, bytes)."""

    cell_timeout_s: int = 120
    notebook_timeout_s: int = 900
    memory_mb: int = 4096
    max_processes: int = 256
    max_output_bytes: int = 2_000_000
    max_file_bytes: int = 100 * MiB

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"Limits.{f.name} must be a positive integer, got {value!r}")

    @property
    def memory_bytes(self) -> int:
        return self.memory_mb * MiB

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "Limits":
        """Parse :meth:`to_json`'s output; unknown keys are an error (a typo must not pass silently)."""
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError(f"limits JSON must be an object, got {type(data).__name__}")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown limit(s) {sorted(unknown)}; known: {sorted(known)}")
        return cls(**data)

    def to_env(self, env: dict | None = None) -> dict:
        """Put the limits into ``env`` (default: ``os.environ``) under :data:`ENV_VAR`; return ``env``."""
        env = os.environ if env is None else env
        env[ENV_VAR] = self.to_json()
        return env

    @classmethod
    def from_env(cls, env: dict | None = None) -> "Limits":
        """The limits in ``env[ENV_VAR]`` (default: ``os.environ``), or the defaults when it is unset."""
        env = os.environ if env is None else env
        text = env.get(ENV_VAR, "").strip()
        return cls.from_json(text) if text else cls()


# Per-lab overrides: lab name -> {field: value}. Only what differs from the defaults.
LAB_OVERRIDES: dict[str, dict[str, int]] = {
    "lab01_benchmarking": {"cell_timeout_s": 120, "notebook_timeout_s": 600},
    # torch.compile (inductor) writes a 156 MB precompiled header (.gch) on its first compile
    "lab03_pytorch_performance": {"max_file_bytes": 512 * MiB},
    # Numba's CUDA simulator runs every CUDA thread of a block as a Python thread: a 16 x 16 block is 256
    # threads at once (more while an aborted block's threads wind down), above the default task limit
    "lab04_cuda_numba": {"max_processes": 1024},
    # test cells start torchrun (an agent and up to 4 workers, each importing torch; ~70 tasks at peak,
    # 10-35 s per cell on 2 cores); a deadlocked ring stops at its test's own 100 s launch timeout
    "lab05_distributed": {"cell_timeout_s": 180},
}


def limits_for(lab: str) -> Limits:
    """The limits for grading ``lab``: the defaults with ``LAB_OVERRIDES[lab]`` applied."""
    return dataclasses.replace(Limits(), **LAB_OVERRIDES.get(lab, {}))
