"""The processes of a launch, torchrun's or mpiexec's: each rank's output followed, how it ended, nothing left behind.

The machinery :func:`hpml_lab_utils.launch.torchrun` and
:func:`hpml_lab_utils.mpi.mpiexec` share (week 7, labs 5 and 10): the errors
and the result a launch gives, the environment of every rank, each rank's log
followed line by line and printed as ``[rank R] line``, and every process that
carries the launch's marker killed when it ends, times out or is interrupted.
Notebooks use :mod:`hpml_lab_utils.launch` and :mod:`hpml_lab_utils.mpi`.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import pickle
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RESULT_DIR_ENV = "HPML_LAUNCH_DIR"
LAUNCH_ID_ENV = "HPML_LAUNCH_ID"
_POLL_S = 0.05
STOP_GRACE_S = 2.0  # how long a stopped launcher may take to end its ranks before everything is SIGKILLed
# Lines known to be harmless that are not passed on: c10d looks up the peer's host name, which fails in a
# network namespace without a resolver (the autograder's sandbox), and says so on every connection.
_HARMLESS = re.compile(r"\[c10d\] The hostname of the client socket cannot be retrieved")


class LaunchError(RuntimeError):
    """A ``torchrun`` launch failed: which rank, how, and its last lines of output.

    Attributes: ``rank`` (the rank that failed first, or None when no rank can be
    blamed: the launcher itself failed, or a timeout), ``returncode`` (torchrun's
    exit code, None after a timeout), ``last_lines`` (that rank's last lines, or
    torchrun's own when ``rank`` is None), ``outputs`` (every rank's lines).
    """

    def __init__(
        self,
        message: str,
        *,
        rank: int | None = None,
        returncode: int | None = None,
        last_lines: list[str] | None = None,
        outputs: dict[int, list[str]] | None = None,
    ):
        super().__init__(message)
        self.rank = rank
        self.returncode = returncode
        self.last_lines = list(last_lines or [])
        self.outputs = dict(outputs or {})


class LaunchTimeout(LaunchError):
    """The launch ran longer than its ``timeout_s``; every process it started was killed."""


@dataclass
class LaunchResult:
    """What one :func:`torchrun` launch did.

    ``command``: the torchrun command it ran (as you would type it);
    ``nproc``: number of workers (ranks 0 .. nproc-1); ``returncode``: torchrun's
    exit code (0); ``elapsed_s``: wall time of the whole launch in seconds,
    including Python and torch start-up in every worker (a few seconds);
    ``outputs``: rank -> that rank's output lines (stdout and stderr);
    ``results``: rank -> the object that rank passed to :func:`save_result`.
    """

    command: list[str]
    nproc: int
    returncode: int
    elapsed_s: float
    outputs: dict[int, list[str]] = field(default_factory=dict)
    results: dict[int, Any] = field(default_factory=dict)


def made_by_ended_process(name: str, prefix: str) -> bool:
    """Whether ``name`` (``<prefix><pid>-...``) was made by a process that no longer exists."""
    m = re.match(re.escape(prefix) + r"(\d+)-", name)
    if not m or int(m.group(1)) == os.getpid():
        return False
    try:
        os.kill(int(m.group(1)), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # alive, another user's
    return False


def stale_folders(prefix: str) -> list[str]:
    """The ``<tmp>/<prefix><pid>-*`` folders of processes that no longer exist (killed before cleaning up)."""
    paths = glob.glob(os.path.join(tempfile.gettempdir(), prefix + "*"))
    return [path for path in paths if made_by_ended_process(os.path.basename(path), prefix)]


def remove_stale_folders(prefix: str) -> None:
    """Remove :func:`stale_folders`."""
    for path in stale_folders(prefix):
        shutil.rmtree(path, ignore_errors=True)


class _RankLog:
    """Follows one rank's stdout.log and stderr.log: new complete lines, in arrival order."""

    def __init__(self, rank: int):
        self.rank = rank
        self.paths: dict[str, str] = {}
        self.offsets = {"stdout": 0, "stderr": 0}
        self.partial = {"stdout": b"", "stderr": b""}
        self.lines: list[str] = []

    def find(self, log_dir: str, stream: str) -> str | None:
        """Where torchrun (``--redirects 3``) writes this rank's ``stream``, once it exists."""
        found = glob.glob(os.path.join(log_dir, "*", "attempt_*", str(self.rank), f"{stream}.log"))
        return sorted(found)[-1] if found else None

    def poll(self, log_dir: str, final: bool = False) -> list[str]:
        new = []
        for stream in ("stdout", "stderr"):
            path = self.paths.get(stream)
            if path is None:
                path = self.find(log_dir, stream)
                if path is None:
                    continue
                self.paths[stream] = path
            try:
                with open(path, "rb") as f:
                    f.seek(self.offsets[stream])
                    data = f.read()
            except OSError:
                continue
            self.offsets[stream] += len(data)
            data = self.partial[stream] + data
            *complete, rest = data.split(b"\n")
            if final and rest:
                complete.append(rest)
                rest = b""
            self.partial[stream] = rest
            new += [
                text
                for text in (line.decode("utf-8", "replace").rstrip("\r") for line in complete)
                if not _HARMLESS.search(text)
            ]
        self.lines += new
        return new


def pids_with_env(name: str, value: str) -> list[int]:
    """Processes (other than this one) whose environment holds ``name=value`` (Linux ``/proc``; else [])."""
    needle = f"{name}={value}".encode() + b"\0"
    me = os.getpid()
    out = []
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == me:
                continue
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    if needle in f.read() + b"\0":
                        out.append(int(entry))
            except OSError:
                continue
    return out


def _kill_launch(proc: subprocess.Popen, launch_id: str) -> None:
    """Stop a launch: SIGTERM its agent's process group and wait up to ``STOP_GRACE_S``, then SIGKILL the group and
    every process of this launch (workers lead their own)."""
    if proc.poll() is None:
        # SIGTERM first: mpiexec then stops its ranks and removes its /tmp/hydra_hwloc_xmlfile_*, which a SIGKILL
        # leaves behind (a file per timed-out or interrupted launch)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=STOP_GRACE_S)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    deadline = time.monotonic() + 5.0
    while True:
        pids = pids_with_env(LAUNCH_ID_ENV, launch_id)
        if not pids or time.monotonic() > deadline:
            break
        for pid in pids:
            try:
                os.killpg(pid, signal.SIGKILL)  # a worker and anything it started
            except (ProcessLookupError, PermissionError):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
        time.sleep(0.02)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5.0)


def _read_statuses(folder: str) -> dict[int, dict]:
    out = {}
    for path in glob.glob(os.path.join(folder, "status-rank*.json")):
        with contextlib.suppress(OSError, ValueError):
            with open(path) as f:
                status = json.load(f)
            out[int(status["rank"])] = status
    return out


def _root_cause_rank(agent_lines: list[str]) -> int | None:
    """torchrun's own summary: the rank under "Root Cause (first observed failure)"."""
    text = "\n".join(agent_lines)
    at = text.rfind("Root Cause")
    if at < 0:
        return None
    m = re.search(r"rank\s*:\s*(\d+)", text[at:])
    return int(m.group(1)) if m else None


def _indent(lines: list[str]) -> str:
    return "\n".join("    " + line for line in lines) if lines else "    (no output)"


@dataclass
class _Followed:
    """How a launch ended: its exit code (None after a timeout), the launcher's own last lines, each rank's lines."""

    returncode: int | None
    launcher_lines: list[str]
    outputs: dict[int, list[str]]
    elapsed_s: float

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


def _follow(
    command: list[str],
    cwd: Path,
    child_env: dict,
    ranks: list[_RankLog],
    log_dir: str,
    launch_id: str,
    shown: list[str],
    timeout_s: float,
    stream: bool,
) -> _Followed:
    """Run a launcher, print the ranks' new lines as ``[rank R] line`` until it ends or times out, kill what is left."""

    def emit(log: _RankLog, lines: list[str]) -> None:
        if stream:
            for line in lines:
                print(f"[rank {log.rank}] {line}", flush=True)

    if stream:
        print("$ " + " ".join(shlex.quote(p) for p in shown) + f"   (timeout {timeout_s:g} s)", flush=True)
    launcher_tail: deque[str] = deque(maxlen=200)
    start = time.perf_counter()
    proc = subprocess.Popen(
        command,
        cwd=str(cwd),
        env=child_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )

    def read_launcher() -> None:
        for raw in iter(proc.stdout.readline, b""):
            launcher_tail.append(raw.decode("utf-8", "replace").rstrip())

    reader = threading.Thread(target=read_launcher, name="launcher-output", daemon=True)
    reader.start()
    timed_out = False
    try:
        deadline = time.monotonic() + timeout_s
        while proc.poll() is None:
            for log in ranks:
                emit(log, log.poll(log_dir))
            if time.monotonic() > deadline:
                timed_out = True
                break
            time.sleep(_POLL_S)
    finally:
        # normal exit, timeout, KeyboardInterrupt or any error: nothing of this launch stays alive
        _kill_launch(proc, launch_id)
        reader.join(timeout=2.0)
        for log in ranks:
            emit(log, log.poll(log_dir, final=True))
    return _Followed(
        None if timed_out else proc.returncode,
        list(launcher_tail),
        {log.rank: list(log.lines) for log in ranks},
        time.perf_counter() - start,
    )


def _checked_launch(
    script: str | os.PathLike, nproc: int, timeout_s: float, cwd: str | os.PathLike | None, what: str
) -> tuple[Path, Path]:
    """The script's and the working folder's absolute paths, after checking a launch's arguments."""
    if isinstance(nproc, bool) or not isinstance(nproc, int) or nproc < 1:
        raise ValueError(f"nproc must be a positive int, got {nproc!r}")
    if not timeout_s or timeout_s <= 0:
        raise ValueError(f"timeout_s must be positive, got {timeout_s!r}")
    cwd = (Path(cwd) if cwd is not None else Path.cwd()).resolve()
    script = Path(script)
    script = (script if script.is_absolute() else cwd / script).resolve()
    if not script.is_file():
        raise FileNotFoundError(f"{script} does not exist: write the {what} first (%%writefile)")
    return script, cwd


def _worker_env(cwd: Path, work: str, launch_id: str, threads: int, env: dict[str, str] | None) -> dict[str, str]:
    """The environment of every rank: one thread per library, unbuffered output, the launch's folder and marker,
    ``cwd`` first on ``PYTHONPATH``, then ``env``."""
    child_env = dict(os.environ)
    child_env.update(
        {
            "OMP_NUM_THREADS": str(threads),
            "MKL_NUM_THREADS": str(threads),
            "OPENBLAS_NUM_THREADS": str(threads),
            "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            RESULT_DIR_ENV: work,
            LAUNCH_ID_ENV: launch_id,
        }
    )
    child_env["PYTHONPATH"] = os.pathsep.join(
        [str(cwd)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    child_env.update({k: str(v) for k, v in (env or {}).items()})
    return child_env


def _saved_results(work: str, nproc: int) -> dict[int, Any]:
    """What each rank passed to :func:`save_result`, by rank."""
    results = {}
    for r in range(nproc):
        stem = os.path.join(work, f"result-rank{r}")
        if os.path.exists(stem + ".pt"):
            import torch

            results[r] = torch.load(stem + ".pt", weights_only=False)
        elif os.path.exists(stem + ".pkl"):  # a rank without torch
            with open(stem + ".pkl", "rb") as f:
                results[r] = pickle.load(f)
    return results
