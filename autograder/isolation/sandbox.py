"""Isolation of the student's grading kernel: a scratch folder, resource limits, and bubblewrap when it works.

One grading worker grades one student at a time and tells the kernel manager
what to do through environment variables (read when the kernel manager is created):

==========================  ==================================================
``HPML_SANDBOX_SCRATCH``    the student's scratch folder (:func:`prepare_scratch`):
                            the kernel's cwd and, with bubblewrap, its only
                            writable folder. Unset: a fresh empty temporary one.
``HPML_SANDBOX_LIMITS``     :class:`~autograder.limits.Limits` as JSON
                            (``Limits.to_env()``). Unset: the defaults.
``HPML_SANDBOX_ISOLATION``  ``auto`` (default: bubblewrap when it works),
                            ``bubblewrap`` (refuse to start without it) or
                            ``limits`` (never use it).
``HPML_SANDBOX_HIDE``       more folders to hide from the kernel (``os.pathsep``
                            separated), e.g. the folder of the class's submissions
                            when it is outside the grading folder and HOME.
``HPML_SANDBOX_REVEAL``     more folders to bind back read-only inside hidden ones.
``HPML_SANDBOX_REPORT``     a file to which each kernel appends one JSON line
                            when it ends: exit code or signal, ``killed_for``
                            (``"notebook_timeout"``), ``pids_max_hit``, limits,
                            how memory was limited, ``oom_kills``.
``HPML_SANDBOX_GPU``        the worker's GPU (set by the batch for a lab that
                            uses one, :mod:`autograder.isolation.gpus`): the
                            kernel sees it alone, as CUDA device 0. Unset: the
                            kernel sees no GPU (``CUDA_VISIBLE_DEVICES=""``).
``HPML_SANDBOX_MEMORY``     ``resident`` caps resident memory (a memory cgroup)
                            instead of address space; the default with a GPU.
==========================  ==================================================

Memory: ``RLIMIT_AS`` = ``memory_mb`` for a kernel without a GPU; a kernel with
a GPU has its resident memory capped instead (:mod:`autograder.isolation.memory`).

nbgrader uses it through :class:`SandboxedExecute` (nbgrader's ``Execute``
ignores ``c.Execute.kernel_manager_class``: it passes ``AsyncKernelManager``
as a keyword, which beats config). Plain nbclient:
``NotebookClient(nb, kernel_manager_class=SandboxedKernelManager)``.

What holds (see :func:`describe_isolation`):

Always ("limits only" and "bubblewrap"):
  the kernel starts in the scratch folder (never next to the autograded
  notebook, which holds the hidden tests); ``RLIMIT_AS`` = ``memory_mb`` (an
  allocation over it raises ``MemoryError`` or kills the kernel, never the
  grader); ``RLIMIT_FSIZE`` = ``max_file_bytes``; no core dumps; at most
  ``max_processes`` tasks (processes and threads) through a ``pids`` cgroup when
  the grader is root and cgroups are writable, else ``RLIMIT_NPROC`` relative to
  the tasks the grader's user already has (not enforced for root without the
  cgroup); the kernel in its own session and process group; every process it
  left behind killed when the kernel ends (cgroup, else its process group); the
  whole notebook killed after ``notebook_timeout_s``.
Only with bubblewrap:
  a network namespace whose only interface is its own loopback (Ray's daemons
  work; the host, its loopback included, is out of reach); ``/dev/shm`` a
  private tmpfs of ``shm_mb`` (bubblewrap 0.8 or newer);
  the whole file system read-only; fresh ``/tmp``, ``/dev`` and ``/proc`` (no
  other process of the machine visible); the course repository (``solutions/``),
  the grading folder (gradebook, other students, autograded copies), HOME and
  ``HPML_SANDBOX_HIDE`` replaced by empty folders, except the Python
  installation and ``hpml_lab_utils`` bound back read-only; the scratch folder
  is the only writable place on disk (``/tmp`` and HOME are private in-memory
  folders that vanish with the kernel); no capabilities, no new privileges.
  The rest of the file system stays readable (``/etc``, ``/usr``, ``/var/tmp``,
  ``/srv``...): keep class data under HOME or the grading folder, or list it
  in ``HPML_SANDBOX_HIDE``.
"Limits only" does NOT stop student code from reading or writing any file the
grader can (other submissions, ``solutions/``, the gradebook, the autograded
notebook with its hidden tests, which nbgrader writes to disk), from reading
the grader's memory or environment through ``/proc`` (same user), from using
the network, or from signalling processes of the grader's user.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from hpml_lab_utils.rank_processes import stale_folders

from nbgrader.preprocessors import Execute

from ..limits import Limits
from . import gpus, kernel_launcher, memory, processes
from .reply_channel import PromptKernelManager
from .scratch import prepare_scratch as prepare_scratch  # where the worker and tests find it

SCRATCH_ENV = "HPML_SANDBOX_SCRATCH"
ISOLATION_ENV = "HPML_SANDBOX_ISOLATION"
HIDE_ENV = "HPML_SANDBOX_HIDE"
REVEAL_ENV = "HPML_SANDBOX_REVEAL"
REPORT_ENV = "HPML_SANDBOX_REPORT"
MEMORY_ENV = "HPML_SANDBOX_MEMORY"

# a kernel's private folders in /tmp, named after the worker that made them (``<prefix><pid>-``)
RUNTIME_PREFIX = "hpml-kernel-"  # its connection file and sockets
SCRATCH_PREFIX = "hpml-scratch-"  # its working folder, when the worker gives it none

BUBBLEWRAP = "bubblewrap"
LIMITS_ONLY = "limits only"
LAUNCHER_FILE = Path(kernel_launcher.__file__).resolve()

log = logging.getLogger(__name__)


class SandboxUnavailable(RuntimeError):
    """``HPML_SANDBOX_ISOLATION=bubblewrap`` but bubblewrap does not work here."""


# --------------------------------------------------------------------------- isolation level


@functools.lru_cache(maxsize=1)
def _probe_bwrap() -> tuple[str, str]:
    """(level, reason): run the sandbox's own namespace set-up once with ``true``."""
    exe = shutil.which(kernel_launcher.BWRAP)
    if exe is None:
        return LIMITS_ONLY, "bubblewrap not found: apt-get install bubblewrap"
    cmd = kernel_launcher.bwrap_argv(["true"], scratch=tempfile.gettempdir(), bwrap=exe)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return LIMITS_ONLY, f"bubblewrap does not start here: {exc}"
    if proc.returncode != 0:
        why = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        return LIMITS_ONLY, (
            f"bubblewrap cannot create namespaces here: {why}; user namespaces may be off "
            "(sysctl kernel.unprivileged_userns_clone, Ubuntu's "
            "kernel.apparmor_restrict_unprivileged_userns, or a container without them)"
        )
    return BUBBLEWRAP, ""


@functools.lru_cache(maxsize=1)
def bwrap_sizes_shm() -> bool:
    """Whether this bubblewrap sizes a tmpfs (``--size``, bubblewrap 0.8): then ``/dev/shm`` holds ``shm_mb``."""
    exe = shutil.which(kernel_launcher.BWRAP)
    return exe is not None and _probe_bwrap()[0] == BUBBLEWRAP and kernel_launcher.sizes_tmpfs(exe)


def leftovers() -> tuple[list[str], list[Path]]:
    """What kernels of ended workers left: (their folders in /tmp, their cgroups). A worker SIGKILLed at its wall
    limit, or by ``scancel``, never runs the kernel manager's clean-up."""
    return stale_folders(RUNTIME_PREFIX) + stale_folders(SCRATCH_PREFIX), processes.stale_cgroups()


def remove_leftovers() -> None:
    """Remove :func:`leftovers`, killing what still runs in such a cgroup."""
    folders, groups = leftovers()
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
    for group in groups:
        processes.kill_cgroup(group)


def isolation_level() -> str:
    """``"bubblewrap"`` or ``"limits only"``; probed once per process, ``HPML_SANDBOX_ISOLATION`` honoured.

    Raises :class:`SandboxUnavailable` when ``HPML_SANDBOX_ISOLATION=bubblewrap``
    and bubblewrap does not work.
    """
    want = os.environ.get(ISOLATION_ENV, "auto").strip().lower() or "auto"
    if want in ("limits", "limits only", "none", "off"):
        return LIMITS_ONLY
    if want not in ("auto", BUBBLEWRAP):
        raise ValueError(f"{ISOLATION_ENV}={want!r}: expected auto, bubblewrap or limits")
    level, reason = _probe_bwrap()
    if want == BUBBLEWRAP and level != BUBBLEWRAP:
        raise SandboxUnavailable(f"{ISOLATION_ENV}=bubblewrap, but {reason}")
    return level


def describe_isolation() -> str:
    """The one line the CLI prints once before grading."""
    level = isolation_level()
    if level == BUBBLEWRAP:
        shm = "/dev/shm sized by shm_mb" if bwrap_sizes_shm() else "/dev/shm unsized: bubblewrap older than 0.8"
        return (
            "isolation: bubblewrap (no network but its own loopback, read-only file system, "
            f"only the scratch folder writable, {shm})"
        )
    reason = (
        f"{ISOLATION_ENV}={os.environ.get(ISOLATION_ENV)}"
        if os.environ.get(ISOLATION_ENV, "auto").strip().lower() not in ("", "auto")
        else _probe_bwrap()[1]
    )
    return f"isolation: limits only ({reason}) - student code can read files the grader can read"


# --------------------------------------------------------------------------- what the sandbox hides


def _env_paths(name: str) -> list[str]:
    return [p for p in os.environ.get(name, "").split(os.pathsep) if p.strip()]


def hidden_paths() -> list[str]:
    """Folders bubblewrap replaces by empty ones: course repository, grading folder, HOME, ``HPML_SANDBOX_HIDE``."""
    from ..paths import PACKAGE_DIR, CourseRootNotFound, course_root, grading_dir

    out = [str(grading_dir()), os.path.expanduser("~")]
    with contextlib.suppress(CourseRootNotFound):
        root = course_root()
        out += [str(root), str(root / "solutions")]
    out.append(str(PACKAGE_DIR.parent))  # the checkout this package runs from
    return [p for p in dict.fromkeys(out + _env_paths(HIDE_ENV)) if p and os.path.realpath(p) != "/"]


def revealed_paths(kernel_argv: list[str] = ()) -> list[str]:
    """What the kernel needs from inside hidden folders, bound back read-only: Python and the course package."""
    import importlib.util
    import site
    import sysconfig

    out = [
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        sys.base_exec_prefix,
        os.path.dirname(os.path.dirname(os.path.realpath(sys.executable))),
    ]
    out += [sysconfig.get_paths().get(k, "") for k in ("stdlib", "platstdlib", "purelib", "platlib")]
    with contextlib.suppress(Exception):
        out += site.getsitepackages()
    if kernel_argv:
        exe = shutil.which(kernel_argv[0]) or kernel_argv[0]
        out += [
            os.path.dirname(os.path.dirname(os.path.abspath(exe))),
            os.path.dirname(os.path.dirname(os.path.realpath(exe))),
        ]
    for pkg in ("hpml_lab_utils",):
        with contextlib.suppress(Exception):
            spec = importlib.util.find_spec(pkg)
            if spec is not None and spec.submodule_search_locations:
                out += list(spec.submodule_search_locations)
    return [p for p in dict.fromkeys(out + _env_paths(REVEAL_ENV)) if p]


def _is_bwrap(pid: int) -> bool:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/comm").read_text().strip() == kernel_launcher.BWRAP
    return False


# --------------------------------------------------------------------------- the kernel manager


class SandboxedKernelManager(PromptKernelManager):
    """An ``AsyncKernelManager`` that starts the kernel through :mod:`autograder.isolation.kernel_launcher`.

    Its clients poll the shell channel in slices (:mod:`autograder.isolation.reply_channel`), so a widget cell
    cannot make nbclient sleep through a reply until the cell timeout.

    When created it reads the environment variables of this module: the
    kernel's cwd is the scratch folder (whatever ``cwd`` nbclient asks for), the
    limits apply, and under bubblewrap the connection file and the ZeroMQ IPC
    sockets live in a private runtime folder (bound into the sandbox, whose
    loopback is its own, so no TCP to the grader: the transport is IPC in
    both modes), and under bubblewrap interrupts go as messages (a signal to
    bubblewrap would kill the sandbox).
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.sandbox_level = isolation_level()
        self.sandbox_limits = Limits.from_env()
        scratch = os.environ.get(SCRATCH_ENV, "").strip()
        self._own_scratch = None
        remove_leftovers()
        if not scratch:
            self._own_scratch = tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-")
            scratch = self._own_scratch
            log.warning("%s is not set: the kernel runs in an empty folder %s", SCRATCH_ENV, scratch)
        self.sandbox_scratch = os.path.realpath(scratch)
        if not os.path.isdir(self.sandbox_scratch):
            raise FileNotFoundError(
                f"{SCRATCH_ENV}={scratch}: no such folder (see autograder.isolation.scratch.prepare_scratch)"
            )
        self.sandbox_runtime = tempfile.mkdtemp(prefix=f"{RUNTIME_PREFIX}{os.getpid()}-")
        self.sandbox_cgroup: Path | None = None
        self.sandbox_gpu = os.environ.get(gpus.GPU_ENV, "").strip() or None
        self.sandbox_resident_memory = self.sandbox_gpu is not None or os.environ.get(MEMORY_ENV) == "resident"
        self.sandbox_memory: memory.MemoryCap | None = None
        self.sandbox_killed_for: str | None = None
        self.sandbox_started_at: float | None = None
        self._timer: threading.Timer | None = None
        self._sandbox_proc = None
        self._reported = False
        # IPC in both modes: bubblewrap cuts the network, and unix sockets in a private 0700 folder
        # cannot be reached by other users nor race for TCP ports with parallel workers
        self.transport = "ipc"
        self.ip = os.path.join(self.sandbox_runtime, "kernel")
        self.connection_file = os.path.join(self.sandbox_runtime, "kernel.json")

    # -- launch
    def format_kernel_cmd(self, extra_arguments=None):
        kernel_argv = super().format_kernel_cmd(extra_arguments)
        cmd = [
            sys.executable,
            "-I",
            "-S",
            str(LAUNCHER_FILE),
            "--scratch",
            self.sandbox_scratch,
            "--limits",
            self.sandbox_limits.to_json(),
        ]
        cap = self.sandbox_memory or memory.MemoryCap(memory.ADDRESS_SPACE)
        for group in dict.fromkeys(g for g in (self.sandbox_cgroup, cap.cgroup) if g is not None):
            cmd += ["--cgroup", str(group)]
        if not cap.address_limit:
            cmd += ["--no-address-limit"]
        if self.sandbox_level == BUBBLEWRAP:
            cmd += [
                "--bwrap-extra",
                json.dumps(gpus.bwrap_args(self.sandbox_gpu)),
                "--bwrap",
                "--bwrap-path",
                shutil.which(kernel_launcher.BWRAP) or kernel_launcher.BWRAP,
                "--runtime-dir",
                self.sandbox_runtime,
            ]
            if bwrap_sizes_shm():
                cmd += ["--shm-mb", str(self.sandbox_limits.shm_mb)]
            for h in hidden_paths():
                cmd += ["--hide", h]
            for r in revealed_paths(kernel_argv):
                cmd += ["--reveal", r]
        return cap.prefix + cmd + ["--"] + kernel_argv

    async def _async_pre_start_kernel(self, **kw):
        kw["cwd"] = self.sandbox_scratch  # never the autograded notebook's folder
        if self.sandbox_cgroup is None:
            self.sandbox_cgroup = processes.make_cgroup(self.sandbox_limits.max_processes)
        if self.sandbox_memory is None:
            self.sandbox_memory = memory.memory_cap(
                self.sandbox_resident_memory, self.sandbox_limits.memory_bytes, self.sandbox_cgroup
            )
        env = dict(kw.get("env") or os.environ)
        env.update(gpus.kernel_env(self.sandbox_gpu, self.sandbox_level == BUBBLEWRAP))
        kw["env"] = env
        if self.sandbox_level == BUBBLEWRAP and self.kernel_spec is not None:
            self.kernel_spec.interrupt_mode = "message"
        return await super()._async_pre_start_kernel(**kw)

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        self.sandbox_started_at = time.perf_counter()
        await super()._async_launch_kernel(kernel_cmd, **kw)
        self._sandbox_proc = getattr(self.provisioner, "process", None)  # the provisioner forgets it on exit
        if self._timer is None:
            self._timer = threading.Timer(self.sandbox_limits.notebook_timeout_s, self._kill_for_timeout)
            self._timer.daemon = True
            self._timer.start()

    async def _async_kill_kernel(self, restart: bool = False) -> None:
        # shutdown_kernel(now=True) after the last cell. Under bubblewrap, SIGKILL the kernel and what it
        # started *inside* the sandbox first: bubblewrap then reaps them and exits by itself, so the kernel's
        # CPU time reaches the worker's accounts (killing bubblewrap first orphans the kernel, and the end of
        # its pid namespace discards it)
        proc = getattr(self.provisioner, "process", None)
        if self.sandbox_level == BUBBLEWRAP and proc is not None and proc.poll() is None:
            inside = [pid for pid in processes.descendants(proc.pid) if not _is_bwrap(pid)]
            for pid in inside:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 2.0
            while inside and proc.poll() is None and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
        await super()._async_kill_kernel(restart=restart)

    def _memory_cgroup(self) -> Path | None:
        return self.sandbox_memory.cgroup if self.sandbox_memory else None

    def _kill_for_timeout(self) -> None:
        self.sandbox_killed_for = "notebook_timeout"
        self._kill_everything()

    def _kill_everything(self) -> None:
        """SIGKILL the kernel, its process group and (with a cgroup) everything it started."""
        prov = self.provisioner
        pgid = getattr(prov, "pgid", None)
        if pgid:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, signal.SIGKILL)
        proc = getattr(prov, "process", None) or self._sandbox_proc
        if proc is not None:
            with contextlib.suppress(ProcessLookupError, OSError):
                proc.kill()
        for group in (self.sandbox_cgroup, self._memory_cgroup()):
            for pid in processes.cgroup_pids(group) if group is not None else []:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)

    # -- end
    def _exit_record(self) -> dict:
        proc = getattr(self.provisioner, "process", None) or self._sandbox_proc
        code = proc.poll() if proc is not None else None
        rec = {
            "kernel_id": self.kernel_id,
            "isolation": self.sandbox_level,
            "scratch": self.sandbox_scratch,
            "exit_code": code if code is None or code >= 0 else None,
            "signal": -code if code is not None and code < 0 else None,
            "killed_for": self.sandbox_killed_for,
            "pids_max_hit": processes.pids_max_hits(self.sandbox_cgroup) if self.sandbox_cgroup else None,
            "limits": json.loads(self.sandbox_limits.to_json()),
            "gpu": self.sandbox_gpu,
            "memory": self.sandbox_memory.how if self.sandbox_memory else memory.ADDRESS_SPACE,
            "oom_kills": processes.oom_kills(self._memory_cgroup()) if self._memory_cgroup() else None,
        }
        if code is not None and code > 128 and self.sandbox_level == BUBBLEWRAP:
            rec["signal"] = code - 128  # bubblewrap reports a killed child as 128 + signal
        return rec

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        # called twice per kernel (by shutdown_kernel, then by nbclient): the first call reports and cleans up
        first = not restart and not self._reported
        if first:
            self._reported = True
            if self._timer is not None:
                self._timer.cancel()
            record = self._exit_record()
            self._kill_everything()
        await super()._async_cleanup_resources(restart=restart)
        if not first:
            return
        groups = dict.fromkeys(g for g in (self.sandbox_cgroup, self._memory_cgroup()) if g is not None)
        self.sandbox_cgroup = self.sandbox_memory = None
        for group in groups:  # milliseconds: _kill_everything has killed them (no thread pool: forked workers)
            processes.kill_cgroup(group)
        report = os.environ.get(REPORT_ENV, "").strip()
        if report:
            with contextlib.suppress(OSError):
                fd = os.open(report, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    os.write(fd, (json.dumps(record) + "\n").encode())  # one write: whole lines
                finally:
                    os.close(fd)
        shutil.rmtree(self.sandbox_runtime, ignore_errors=True)
        if self._own_scratch:
            shutil.rmtree(self._own_scratch, ignore_errors=True)

    # AsyncKernelManager binds its public coroutines to KernelManager's functions, and nbclient calls
    # cleanup_resources() itself: point the public name at the override
    cleanup_resources = _async_cleanup_resources


class SandboxedExecute(Execute):
    """nbgrader's ``Execute`` with :class:`SandboxedKernelManager` (configure it as ``c.Execute``).

    A display's later update (``update_display_data``, or a new display with the same ``display_id``) changes
    outputs of the cell that is running only: an update sent after a hidden test ran must not rewrite an output
    of a cell from before it, which the feedback shows (``pipeline/feedback_outputs.py``).
    """

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("kernel_manager_class", SandboxedKernelManager)
        super().__init__(*args, **kwargs)
        self._running_cell_index = None

    def process_message(self, msg, cell, cell_index):
        self._running_cell_index = cell_index
        return super().process_message(msg, cell, cell_index)

    def _update_display_id(self, display_id, msg):
        places = self._display_id_map.get(display_id, {})
        running = {i: outputs for i, outputs in places.items() if i == self._running_cell_index}
        if len(running) != len(places):
            self._display_id_map[display_id] = running
        return super()._update_display_id(display_id, msg)
