"""How a grading kernel's memory is capped: its address space, or its resident memory when it has a GPU.

``RLIMIT_AS`` (set by :mod:`autograder.isolation.kernel_launcher`) is the cap of a kernel without a GPU. A CUDA
context reserves tens of GiB of address space, so a kernel with a GPU is capped on resident memory (and swap)
instead: a memory cgroup (root, writable cgroup tree), else ``systemd-run --scope -p MemoryMax=`` where systemd
runs, else nothing, which the student's log says.
"""

from __future__ import annotations

import functools
import logging
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from . import processes

ADDRESS_SPACE = "address space (RLIMIT_AS)"
CGROUP = "resident (memory cgroup)"
SYSTEMD_SCOPE = "resident (systemd scope)"
UNLIMITED = "unlimited"
UNLIMITED_WHY = (
    "a kernel with a GPU cannot run under RLIMIT_AS, and this machine offers no writable memory cgroup "
    "(grade as root) and no systemd-run"
)

log = logging.getLogger(__name__)


@dataclass
class MemoryCap:
    """How one kernel's memory is capped: ``how`` (one of this module's constants), the memory cgroup it joins,
    and the command it starts under (``systemd-run``)."""

    how: str
    cgroup: Path | None = None
    prefix: list[str] = field(default_factory=list)

    @property
    def address_limit(self) -> bool:
        return self.how == ADDRESS_SPACE


@functools.lru_cache(maxsize=1)
def systemd_scope_available() -> bool:
    """``systemd-run --scope`` can put a kernel under a memory limit: systemd is this machine's init."""
    return shutil.which("systemd-run") is not None and Path("/run/systemd/system").is_dir()


def memory_cap(resident: bool, limit_bytes: int, pids_group: Path | None = None) -> MemoryCap:
    """The cap of a kernel allowed ``limit_bytes``: on address space unless ``resident`` (a kernel with a GPU)."""
    if not resident:
        return MemoryCap(ADDRESS_SPACE)
    group = processes.make_memory_cgroup(limit_bytes, pids_group)
    if group is not None:
        return MemoryCap(CGROUP, cgroup=group)
    if systemd_scope_available():
        scope = ["systemd-run", "--scope", "--quiet", "--collect"]
        return MemoryCap(SYSTEMD_SCOPE, prefix=[*scope, "-p", f"MemoryMax={limit_bytes}", "-p", "MemorySwapMax=0"])
    log.warning("memory is NOT limited for this student's kernel: %s", UNLIMITED_WHY)
    return MemoryCap(UNLIMITED)
