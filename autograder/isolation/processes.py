"""The processes a grading starts: find them all, cap how many there may be, kill them all.

A student's kernel can fork, start new sessions and outlive its parent. Two
tools keep that bounded: a ``pids`` cgroup per kernel (as root, where
``/sys/fs/cgroup`` is writable) whose ``pids.max`` caps tasks and which is
emptied with SIGKILL at the end (:func:`make_cgroup`, :func:`kill_cgroup`),
and :func:`kill_job`, which kills a worker with every session its processes
opened. A kernel that uses a GPU gets a memory cgroup as well
(:func:`make_memory_cgroup`): its resident memory is capped instead of its
address space.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

from hpml_lab_utils.rank_processes import made_by_ended_process

CGROUP_PARENT = "hpml-grading"

log = logging.getLogger(__name__)


def _writable_hierarchy(controller: str, v1_file: str) -> Path | None:
    """A cgroup hierarchy of ``controller`` this process may create groups in (root): v1's
    ``/sys/fs/cgroup/<controller>``, or v2's ``/sys/fs/cgroup`` when it offers the controller; else None."""
    if os.geteuid() != 0:
        return None
    v1 = Path("/sys/fs/cgroup") / controller
    if (v1 / v1_file).exists() and os.access(v1, os.W_OK):
        return v1
    v2 = Path("/sys/fs/cgroup")
    with contextlib.suppress(OSError):
        if controller in (v2 / "cgroup.controllers").read_text().split() and os.access(v2, os.W_OK):
            return v2
    return None


def pids_cgroup_root() -> Path | None:
    """A writable pids cgroup hierarchy (v1 ``/sys/fs/cgroup/pids``, or v2 with the pids controller), or None."""
    return _writable_hierarchy("pids", "cgroup.procs")


def make_cgroup(max_tasks: int) -> Path | None:
    root = pids_cgroup_root()
    if root is None:
        return None
    try:
        parent = root / CGROUP_PARENT
        parent.mkdir(exist_ok=True)
        if root.name != "pids":  # cgroup v2: enable pids for the children of our parent
            with contextlib.suppress(OSError):
                (root / "cgroup.subtree_control").write_text("+pids")
            with contextlib.suppress(OSError):
                (parent / "cgroup.subtree_control").write_text("+pids")
        group = parent / f"kernel-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        group.mkdir()
        (group / "pids.max").write_text(str(max_tasks))
        return group
    except OSError as exc:
        log.warning("no pids cgroup for the grading kernel (%s); process limit via RLIMIT_NPROC only", exc)
        return None


def memory_cgroup_root() -> Path | None:
    """A writable memory cgroup hierarchy (v1 ``/sys/fs/cgroup/memory``, or v2 with the memory controller), or None."""
    return _writable_hierarchy("memory", "memory.limit_in_bytes")


def make_memory_cgroup(limit_bytes: int, pids_group: Path | None = None) -> Path | None:
    """A cgroup whose resident memory (and swap) is capped at ``limit_bytes``; None where none can be made.

    Over it the kernel's OOM killer ends the kernel (SIGKILL), as it would a process over ``RLIMIT_AS`` that
    native code cannot recover from. Unlike ``RLIMIT_AS`` it leaves address space alone, which CUDA reserves
    by the tens of GiB. cgroup v2 puts a process in one group only: there the pids group carries the limit too.
    """
    root = memory_cgroup_root()
    if root is None:
        return None
    v1 = root.name == "memory"
    try:
        shared = not v1 and pids_group is not None and root in pids_group.parents
        if shared:
            group = pids_group
        else:
            (root / CGROUP_PARENT).mkdir(exist_ok=True)
            group = root / CGROUP_PARENT / f"memory-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        if not v1:  # v2: the controller is enabled for the children of each ancestor, before the group exists
            for folder in (root, group.parent):
                with contextlib.suppress(OSError):
                    (folder / "cgroup.subtree_control").write_text("+memory")
        if not shared:
            group.mkdir()
        if v1:
            (group / "memory.limit_in_bytes").write_text(str(limit_bytes))
            with contextlib.suppress(OSError):  # absent without swap accounting
                (group / "memory.memsw.limit_in_bytes").write_text(str(limit_bytes))
        else:
            (group / "memory.max").write_text(str(limit_bytes))
            with contextlib.suppress(OSError):
                (group / "memory.swap.max").write_text("0")
        return group
    except OSError as exc:
        log.warning("no memory cgroup for the grading kernel (%s)", exc)
        return None


def oom_kills(group: Path) -> int:
    """Processes of ``group`` the kernel's OOM killer ended for its memory limit (v1 ``memory.oom_control``,
    v2 ``memory.events``)."""
    for name in ("memory.events", "memory.oom_control"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            for line in (group / name).read_text().splitlines():
                if line.startswith("oom_kill "):
                    return int(line.split()[1])
    return 0


def cgroup_pids(group: Path) -> list[int]:
    with contextlib.suppress(OSError):
        return [int(x) for x in (group / "cgroup.procs").read_text().split()]
    return []


def kill_cgroup(group: Path, timeout_s: float = 5.0) -> None:
    """SIGKILL every process in ``group`` until it is empty (forks racing the kill included), then remove it."""
    deadline = time.monotonic() + timeout_s
    while True:
        pids = cgroup_pids(group)
        if not pids or time.monotonic() > deadline:
            break
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.02)
    for _ in range(50):
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.02)
    log.warning("could not remove cgroup %s", group)


def stale_cgroups() -> list[Path]:
    """The kernel cgroups whose worker ended without removing them (SIGKILLed, or scancel)."""
    roots = dict.fromkeys(r for r in (pids_cgroup_root(), memory_cgroup_root()) if r is not None)
    return [
        group
        for root in roots
        for prefix in ("kernel-", "memory-")
        for group in (root / CGROUP_PARENT).glob(prefix + "*")
        if made_by_ended_process(group.name, prefix)
    ]


def pids_max_hits(group: Path) -> int:
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in (group / "pids.events").read_text().splitlines():
            if line.startswith("max "):
                return int(line.split()[1])
    return 0


def process_limit_enforced() -> bool:
    """Whether ``max_processes`` holds here: a writable pids cgroup (root), or ``RLIMIT_NPROC`` (not root)."""
    return os.geteuid() != 0 or pids_cgroup_root() is not None


def descendants(pid: int) -> set[int]:
    """Process ids of every live descendant of ``pid`` (from /proc; empty where there is no /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            continue
    out, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in out:
                out.add(child)
                todo.append(child)
    return out


def _sessions(pids: set[int]) -> set[int]:
    sids = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            sids.add(os.getsid(pid))
    return sids


def kill_job(proc: subprocess.Popen, kernel_pid: int | None = None) -> None:
    """SIGKILL a worker, its process group, its kernel's session and everything they started.

    jupyter_client starts each kernel in a session of its own, so killing the
    worker's group is not enough: the kernel's session (its pid) and every
    descendant's session go too, including forks that outlived their parent.
    """
    pids = descendants(proc.pid) | {proc.pid}
    sessions = (_sessions(pids) | {proc.pid} | ({kernel_pid} if kernel_pid else set())) - {os.getsid(0)}
    for _ in range(3):  # a fork bomb can add processes while we kill: sweep a few times
        for stat in Path("/proc").glob("[0-9]*"):
            with contextlib.suppress(OSError, ValueError):
                if os.getsid(int(stat.name)) in sessions:
                    pids.add(int(stat.name))
        for sid in sessions:
            with contextlib.suppress(OSError):
                os.killpg(sid, signal.SIGKILL)
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        pids = set()
    with contextlib.suppress(Exception):
        proc.wait(timeout=10)
