"""Resource limits of one student's grading: one type, one set of defaults.

:func:`autograder.lab_settings.limits_for` resolves a lab's limits, once, in the
main process: the defaults of :class:`Limits`, that lab's ``[limits]`` in
``solutions/<lab>/lab.toml`` (edit that file to give a lab more time or
memory), then the environment overrides of a one-off run
(:func:`with_env_overrides`: :data:`ENV_VAR` as JSON, ``$HPML_CELL_TIMEOUT``,
``$HPML_NOTEBOOK_TIMEOUT``, ``$HPML_MAX_OUTPUT_BYTES``). The result travels to
the grading worker and its kernel launcher as one JSON object in
:data:`ENV_VAR` (:meth:`Limits.to_env`, read back with :meth:`Limits.from_env`).

Who enforces what (see ``autograder/isolation/sandbox.py`` for the whole guarantee):

- ``cell_timeout_s``, ``notebook_timeout_s``: the grader (nbgrader's
  ``Execute.timeout`` per cell; the batch per notebook).
- ``memory_mb``: ``RLIMIT_AS`` of the kernel and of every process it starts
  (address space, so slightly stricter than resident memory; importing numpy,
  torch, numba and matplotlib needs about 1 GB of it). Over it, allocations
  fail: Python raises ``MemoryError``, or native code aborts and the kernel dies. A kernel with a GPU has its
  resident memory capped instead, by a memory cgroup (CUDA reserves far more address space than that).
- ``max_processes``: tasks (processes and threads) the kernel may have at once.
  Linux does not enforce ``RLIMIT_NPROC`` for root, so as root the launcher
  puts the kernel in a fresh ``pids`` cgroup with ``pids.max`` set to this
  (when ``/sys/fs/cgroup`` is writable); as another user it sets
  ``RLIMIT_NPROC`` to the tasks that user already has plus this.
- ``max_output_bytes``: outputs of one notebook; the worker cuts them.
- ``max_file_bytes``: ``RLIMIT_FSIZE``: no file written larger than this
  (the write fails with ``OSError: [Errno 27] File too large``).
- ``shm_mb``: the size of the kernel's own ``/dev/shm`` under bubblewrap (a
  private tmpfs: shared-memory segments, DataLoader workers' tensors, Ray's
  object store); a write past it fails with ``ENOSPC``. Its pages are memory:
  they count in the memory cgroup where resident memory is capped.
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
    shm_mb: int = 512

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


# One-off overrides of single fields (the tests use short limits that way).
ENV_OVERRIDES = {
    "HPML_CELL_TIMEOUT": "cell_timeout_s",
    "HPML_NOTEBOOK_TIMEOUT": "notebook_timeout_s",
    "HPML_MAX_OUTPUT_BYTES": "max_output_bytes",
}


def with_env_overrides(limits: Limits, env: Mapping[str, str] | None = None) -> Limits:
    """``limits`` with the environment's overrides of a one-off run.

    ``env[ENV_VAR]`` (JSON of every field) replaces ``limits`` whole; each
    variable of :data:`ENV_OVERRIDES` then sets one field. A value that is not
    a positive integer is a :class:`ValueError` naming the variable.
    """
    env = os.environ if env is None else env
    text = env.get(ENV_VAR, "").strip()
    if text:
        limits = Limits.from_json(text)
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
