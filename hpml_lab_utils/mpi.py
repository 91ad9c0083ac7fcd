"""Start MPI programs with ``mpiexec`` from a notebook, and see every rank's output (week 7, lab10).

An MPI program is one script started ``N`` times by a launcher; each copy asks
its communicator for its rank and the world size and exchanges messages with
the others (``mpi4py``: ``MPI.COMM_WORLD.Send``, ``Recv``, ``Allreduce``...)::

    mpiexec -n N python -m mpi4py script.py ARGS...

``python -m mpi4py`` makes an uncaught exception in one rank abort the whole
job (``MPI_Abort``) instead of leaving the other ranks waiting forever in a
collective. ``mpiexec`` comes with the ``mpich`` wheel (``pip install mpi4py
mpich``), next to this Python; :func:`mpiexec_path` finds it.

What :func:`mpiexec` adds around the command, as :func:`hpml_lab_utils.launch.torchrun` does:

- each rank's stdout and stderr go to their own files (``-outfile-pattern``),
  printed into the notebook as ``[rank R] line`` while the job runs;
- ``OMP_NUM_THREADS=1`` in every rank, ``PYTHONPATH`` starting with ``cwd``;
- a timeout that kills every process of the launch (:class:`~hpml_lab_utils.launch.LaunchTimeout`),
  and nothing left running after a failure or an interrupt;
- :class:`~hpml_lab_utils.launch.LaunchError` naming the rank that failed and its last lines;
- results: a rank calls :func:`hpml_lab_utils.launch.save_result` and the notebook
  finds the object in ``LaunchResult.results[rank]``.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .launch import (
    LAUNCH_ID_ENV,
    RESULT_DIR_ENV,
    LaunchError,
    LaunchResult,
    LaunchTimeout,
    _kill_launch,
    _RankLog,
    _remove_stale,
)

__all__ = ["mpi_available", "mpiexec", "mpiexec_command", "mpiexec_path"]

DEFAULT_TIMEOUT_S = 120.0
_POLL_S = 0.05
# MPICH's report of the rank that called MPI_Abort first (python -m mpi4py aborts on an uncaught exception)
_ABORTED = re.compile(r"rank (\d+) in comm \d+\): application called MPI_Abort")
_EXCEPTION = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit)\b.*")


def mpiexec_path() -> str | None:
    """The ``mpiexec`` next to this Python (the ``mpich`` wheel installs it there), else the one on ``PATH``."""
    beside = Path(sys.executable).with_name("mpiexec")
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("mpiexec")


def mpi_available() -> tuple[bool, str]:
    """Whether :func:`mpiexec` can run here, and if not, what to install."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False, "mpi4py is not installed: pip install mpi4py mpich"
    if mpiexec_path() is None:
        return False, "no mpiexec found: pip install mpich (or your system's MPI)"
    return True, "mpiexec " + str(mpiexec_path())


def mpiexec_command(script: str | os.PathLike, nproc: int, args: Iterable[Any] = ()) -> list[str]:
    """The command :func:`mpiexec` runs, as you would type it in a terminal."""
    return ["mpiexec", "-n", str(nproc), "python", "-m", "mpi4py", str(script), *map(str, args)]


class _MpiRankLog(_RankLog):
    """One rank's ``rank-R.out`` and ``rank-R.err`` (MPICH's ``-outfile-pattern`` / ``-errfile-pattern``)."""

    def find(self, log_dir: str, stream: str) -> str | None:
        path = os.path.join(log_dir, f"rank-{self.rank}.{'out' if stream == 'stdout' else 'err'}")
        return path if os.path.exists(path) else None


def _failed_rank(outputs: dict[int, list[str]]) -> int | None:
    """The rank MPICH says aborted first, else the lowest rank that printed a traceback."""
    for lines in outputs.values():
        for line in lines:
            found = _ABORTED.search(line)
            if found:
                return int(found.group(1))
    crashed = [r for r, lines in sorted(outputs.items()) if any(line.startswith("Traceback") for line in lines)]
    return crashed[0] if crashed else None


def mpiexec(
    script: str | os.PathLike,
    nproc: int = 2,
    args: Iterable[Any] = (),
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    cwd: str | os.PathLike | None = None,
    env: dict[str, str] | None = None,
    stream: bool = True,
    tail_lines: int = 15,
) -> LaunchResult:
    """Run ``script`` on ``nproc`` MPI ranks with ``mpiexec -n nproc python -m mpi4py script`` (week 7, lab10).

    ``args`` go to the script (``sys.argv[1:]``); ``cwd`` (default: the current
    folder) is the ranks' working folder and comes first on their ``PYTHONPATH``;
    ``env`` adds environment variables. With ``stream=True`` each line a rank
    writes is printed as ``[rank R] line``. Raises :class:`LaunchError` when the
    job fails (naming the rank that failed, with its last ``tail_lines`` lines)
    and :class:`LaunchTimeout` after ``timeout_s`` seconds; in both cases, and on
    KeyboardInterrupt, every process of the launch is killed first.
    """
    if isinstance(nproc, bool) or not isinstance(nproc, int) or nproc < 1:
        raise ValueError(f"nproc must be a positive int, got {nproc!r}")
    if not timeout_s or timeout_s <= 0:
        raise ValueError(f"timeout_s must be positive, got {timeout_s!r}")
    ok, why = mpi_available()
    if not ok:
        raise RuntimeError(why)
    cwd = (Path(cwd) if cwd is not None else Path.cwd()).resolve()
    script = Path(script)
    script = (script if script.is_absolute() else cwd / script).resolve()
    if not script.is_file():
        raise FileNotFoundError(f"{script} does not exist: write the MPI script first (%%writefile)")
    args = [str(a) for a in args]
    shown = mpiexec_command(script.name if script.parent == cwd else script, nproc, args)

    _remove_stale("hpml-mpi-")
    work = tempfile.mkdtemp(prefix=f"hpml-mpi-{os.getpid()}-")
    launch_id = uuid.uuid4().hex
    child_env = dict(os.environ)
    child_env.update(
        {
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1",
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
    command = [
        mpiexec_path(),
        "-outfile-pattern",
        os.path.join(work, "rank-%r.out"),
        "-errfile-pattern",
        os.path.join(work, "rank-%r.err"),
        "-n",
        str(nproc),
        sys.executable,
        "-m",
        "mpi4py",
        str(script),
        *args,
    ]
    try:
        return _run(command, cwd, child_env, work, launch_id, nproc, shown, timeout_s, stream, tail_lines)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run(
    command: list[str],
    cwd: Path,
    child_env: dict,
    work: str,
    launch_id: str,
    nproc: int,
    shown: list[str],
    timeout_s: float,
    stream: bool,
    tail_lines: int,
) -> LaunchResult:
    ranks = [_MpiRankLog(r) for r in range(nproc)]

    def follow(final: bool = False) -> None:
        for log in ranks:
            for line in log.poll(work, final=final):
                if stream:
                    print(f"[rank {log.rank}] {line}", flush=True)

    if stream:
        print("$ " + " ".join(shlex.quote(p) for p in shown) + f"   (timeout {timeout_s:g} s)", flush=True)
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
    launcher: deque[str] = deque(maxlen=200)  # mpiexec's own messages

    def read_launcher() -> None:
        for raw in iter(proc.stdout.readline, b""):
            launcher.append(raw.decode("utf-8", "replace").rstrip())

    reader = threading.Thread(target=read_launcher, name="mpiexec-output", daemon=True)
    reader.start()
    timed_out = False
    try:
        deadline = time.monotonic() + timeout_s
        while proc.poll() is None:
            follow()
            if time.monotonic() > deadline:
                timed_out = True
                break
            time.sleep(_POLL_S)
    finally:
        _kill_launch(proc, launch_id)  # normal exit, timeout or interrupt: nothing of this launch stays alive
        reader.join(timeout=2.0)
        follow(final=True)
    launcher_lines = list(launcher)
    elapsed = time.perf_counter() - start
    outputs = {log.rank: list(log.lines) for log in ranks}
    if timed_out:
        raise LaunchTimeout(
            f"mpiexec timed out after {timeout_s:g} s (timeout_s) and was killed with its {nproc} rank(s) "
            "(a rank waiting for a message nobody sends, or a collective that not every rank calls?)",
            returncode=None,
            last_lines=launcher_lines[-tail_lines:],
            outputs=outputs,
        )
    if proc.returncode != 0:
        rank = _failed_rank(outputs | {-1: launcher_lines})
        last = outputs.get(rank, launcher_lines)[-tail_lines:] if rank is not None else launcher_lines[-tail_lines:]
        errors = [line for line in outputs.get(rank, []) if _EXCEPTION.match(line)]
        who = f"rank {rank} of {nproc} failed" if rank is not None else "mpiexec failed"
        who += f" ({errors[-1]})" if errors else ""
        raise LaunchError(
            f"{who}; mpiexec exit code {proc.returncode}. Last {len(last)} line(s):\n"
            + "\n".join("    " + line for line in last),
            rank=rank,
            returncode=proc.returncode,
            last_lines=last,
            outputs=outputs,
        )
    results = {}
    for r in range(nproc):
        path = os.path.join(work, f"result-rank{r}.pt")
        if os.path.exists(path):
            import torch

            results[r] = torch.load(path, weights_only=False)
    return LaunchResult(
        command=shown, nproc=nproc, returncode=proc.returncode, elapsed_s=elapsed, outputs=outputs, results=results
    )
