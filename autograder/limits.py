"""Resource limits of one student's grading, with per-lab overrides: one type, one set of defaults.

:func:`limits_for` resolves a lab's limits, once, in the main process: the
defaults of :class:`Limits`, that lab's entry of :data:`LAB_OVERRIDES` (edit that
one dict to give a lab more time or memory), then the environment overrides
of a one-off run (:data:`ENV_VAR` as JSON, ``$HPML_CELL_TIMEOUT``,
``$HPML_NOTEBOOK_TIMEOUT``, ``$HPML_MAX_OUTPUT_BYTES``). The result travels to
the grading worker and its kernel launcher as one JSON object in
:data:`ENV_VAR` (:meth:`Limits.to_env`, read back with :meth:`Limits.from_env`).

Who enforces what (see ``autograder/sandbox.py`` for the whole guarantee):

- ``cell_timeout_s``, ``notebook_timeout_s``: the grader (nbgrader's
  ``Execute.timeout`` per cell; the batch per notebook).
- ``memory_mb``: ``RLIMIT_AS`` of the kernel and of every process it starts
  (address space, so slightly stricter than resident memory; importing numpy,
  torch, numba and matplotlib needs about 1 GB of it). Over it, allocations
  fail: Python raises ``MemoryError``, or native code aborts and the kernel dies.
- ``max_processes``: tasks (processes and threads) the kernel may have at once.
  Linux does not enforce ``RLIMIT_NPROC`` for root, so as root the launcher
  puts the kernel in a fresh ``pids`` cgroup with ``pids.max`` set to this
  (when ``/sys/fs/cgroup`` is writable); as another user it sets
  ``RLIMIT_NPROC`` to the tasks that user already has plus this.
- ``max_output_bytes``: outputs of one notebook; the worker cuts them.
- ``max_file_bytes``: ``RLIMIT_FSIZE``: no file written larger than this
  (the write fails with ``OSError: [Errno 27] File too large``).
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
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

    def describe(self) -> str:
        """One line for the instructor: the limits a submission is graded under."""
        return (
            f"cell {self.cell_timeout_s} s, notebook {self.notebook_timeout_s} s, "
            f"{self.memory_mb} MiB, {self.max_output_bytes:,} bytes of output per notebook"
        )

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Limits:
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
    def from_env(cls, env: dict | None = None) -> Limits:
        """The limits in ``env[ENV_VAR]`` (default: ``os.environ``), or the defaults when it is unset."""
        env = os.environ if env is None else env
        text = env.get(ENV_VAR, "").strip()
        return cls.from_json(text) if text else cls()


# Per-lab overrides: lab name -> {field: value}. Only what differs from the defaults.
LAB_OVERRIDES: dict[str, dict[str, int]] = {
    "lab01_benchmarking": {"notebook_timeout_s": 600},
    # torch.compile (inductor) writes a 156 MB precompiled header (.gch) on its first compile
    "lab03_pytorch_performance": {"max_file_bytes": 512 * MiB},
    # Numba's CUDA simulator runs every CUDA thread of a block as a Python thread: a 16 x 16 block is 256
    # threads at once (more while an aborted block's threads wind down), above the default task limit
    "lab04_cuda_numba": {"max_processes": 1024},
    # test cells start torchrun (an agent and up to 4 workers, each importing torch; ~70 tasks at peak,
    # 10-35 s per cell on 2 cores); a deadlocked ring stops at its test's own 100 s launch timeout
    "lab05_distributed": {"cell_timeout_s": 180},
    # the same launches (torchrun and mpiexec, 2 to 4 ranks, 3 to 25 s per cell on 2 cores); a deadlock stops at
    # the checker's 15-20 s process-group timeout, and at worst at its test's 60 s launch timeout
    "lab10_parallel_training": {"cell_timeout_s": 180},
    # the load cell compiles the student's C++ extension with g++ and OpenMP: 20-60 s alone, longer beside
    # other grading kernels (about 1.5 GB at its peak, inside the default memory limit)
    "lab11_custom_kernels": {"cell_timeout_s": 240},
}


# One-off overrides of single fields (the tests use short limits that way).
ENV_OVERRIDES = {
    "HPML_CELL_TIMEOUT": "cell_timeout_s",
    "HPML_NOTEBOOK_TIMEOUT": "notebook_timeout_s",
    "HPML_MAX_OUTPUT_BYTES": "max_output_bytes",
}


def limits_for(lab: str, env: Mapping[str, str] | None = None) -> Limits:
    """The limits for grading ``lab``: ``Limits()`` with ``LAB_OVERRIDES[lab]``, then the environment's overrides.

    ``env[ENV_VAR]`` (JSON of every field) replaces the per-lab limits; each
    variable of :data:`ENV_OVERRIDES` then sets one field. A value that is not
    a positive integer is a :class:`ValueError` naming the variable.
    """
    env = os.environ if env is None else env
    text = env.get(ENV_VAR, "").strip()
    limits = Limits.from_json(text) if text else dataclasses.replace(Limits(), **LAB_OVERRIDES.get(lab, {}))
    changes = {}
    for name, field in ENV_OVERRIDES.items():
        raw = env.get(name, "").strip()
        if raw:
            try:
                changes[field] = int(float(raw))
            except ValueError:
                raise ValueError(f"${name}={raw!r}: expected a whole number") from None
    return dataclasses.replace(limits, **changes)


def soft_limit_margin_s(limits: Limits) -> float:
    """Time between the worker's soft wall limit and the hard kill, for nbgrader to save the grades: 10%, 5..30 s."""
    return min(30.0, max(5.0, 0.1 * limits.notebook_timeout_s))


def markdown_table(labs: list[str]) -> str:
    """The README's limits table: the defaults, then each lab with what it overrides in bold."""
    names = [f.name for f in dataclasses.fields(Limits)]
    rows = ["| lab | " + " | ".join(f"`{n}`" for n in names) + " |", "| --- |" + " ---: |" * len(names)]
    for lab in ["(defaults)"] + labs:
        limits, changed = dataclasses.replace(Limits(), **LAB_OVERRIDES.get(lab, {})), LAB_OVERRIDES.get(lab, {})
        cells = [f"**{getattr(limits, n):,}**" if n in changed else f"{getattr(limits, n):,}" for n in names]
        rows.append(f"| {lab} | " + " | ".join(cells) + " |")
    return "\n".join(rows)
