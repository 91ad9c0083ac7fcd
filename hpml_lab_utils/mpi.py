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

import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .rank_processes import (
    LaunchError,
    LaunchResult,
    LaunchTimeout,
    _checked_launch,
    _follow,
    _Followed,
    _indent,
    _RankLog,
    _saved_results,
    _worker_env,
    remove_stale_folders,
)

__all__ = ["mpi_available", "mpiexec", "mpiexec_command", "mpiexec_path"]

DEFAULT_TIMEOUT_S = 120.0
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
    path = mpiexec_path()
    if path is None:
        return False, "no mpiexec found: pip install mpich"
    if not _is_hydra(path):  # Open MPI's mpiexec, say: it refuses -outfile-pattern and would fail every launch
        return False, (
            f"{path} is not MPICH's mpiexec (Hydra), which mpiexec() needs for its options: pip install mpich "
            "(it puts MPICH's mpiexec next to this Python, found before the one on PATH)"
        )
    return True, "mpiexec " + path


@functools.cache  # asked before every launch; the answer for a path does not change
def _is_hydra(path: str) -> bool:
    """Whether ``path --version`` is MPICH's process manager, Hydra (MPICH, Intel MPI)."""
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "HYDRA" in done.stdout.upper()


def mpiexec_command(script: str | os.PathLike, nproc: int, args: Iterable[Any] = ()) -> list[str]:
    """The command :func:`mpiexec` runs, as you would type it in a terminal."""
    return ["mpiexec", "-n", str(nproc), "python", "-m", "mpi4py", str(script), *map(str, args)]


class _MpiRankLog(_RankLog):
    """One rank's ``rank-R.out`` and ``rank-R.err`` (MPICH's ``-outfile-pattern`` / ``-errfile-pattern``)."""

    def find(self, log_dir: str, stream: str) -> str | None:
        path = os.path.join(log_dir, f"rank-{self.rank}.{'out' if stream == 'stdout' else 'err'}")
        return path if os.path.exists(path) else None


def _failed_rank(outputs: dict[int, list[str]], launcher_lines: list[str]) -> int | None:
    """The rank MPICH says aborted first (in any output), else the lowest rank that printed a traceback."""
    for lines in [*outputs.values(), launcher_lines]:
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
    script, cwd = _checked_launch(script, nproc, timeout_s, cwd, "MPI script")
    ok, why = mpi_available()
    if not ok:
        raise RuntimeError(why)
    args = [str(a) for a in args]
    shown = mpiexec_command(script.name if script.parent == cwd else script, nproc, args)

    remove_stale_folders("hpml-mpi-")
    work = tempfile.mkdtemp(prefix=f"hpml-mpi-{os.getpid()}-")
    launch_id = uuid.uuid4().hex
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
        done = _follow(
            command,
            cwd,
            _worker_env(cwd, work, launch_id, 1, env),
            [_MpiRankLog(r) for r in range(nproc)],
            work,
            launch_id,
            shown,
            timeout_s,
            stream,
        )
        if done.timed_out:
            raise LaunchTimeout(
                f"mpiexec timed out after {timeout_s:g} s (timeout_s) and was killed with its {nproc} rank(s) "
                "(a rank waiting for a message nobody sends, or a collective that not every rank calls?)",
                last_lines=done.launcher_lines[-tail_lines:],
                outputs=done.outputs,
            )
        if done.returncode != 0:
            raise _failure(done, nproc, tail_lines)
        return LaunchResult(
            command=shown,
            nproc=nproc,
            returncode=done.returncode,
            elapsed_s=done.elapsed_s,
            outputs=done.outputs,
            results=_saved_results(work, nproc),
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _failure(done: _Followed, nproc: int, tail_lines: int) -> LaunchError:
    """The error of a job that exited with a failure: the rank that failed first, its exception, its last lines."""
    outputs = done.outputs
    rank = _failed_rank(outputs, done.launcher_lines)
    if rank not in outputs:  # MPICH named a rank this launch did not start, or nobody failed visibly
        rank = None
    last = (done.launcher_lines if rank is None else outputs[rank])[-tail_lines:]
    errors = [line for line in outputs.get(rank, []) if _EXCEPTION.match(line)]
    who = "mpiexec failed" if rank is None else f"rank {rank} of {nproc} failed"
    who += f" ({errors[-1]})" if errors else ""
    return LaunchError(
        f"{who}; mpiexec exit code {done.returncode}. Last {len(last)} line(s):\n" + _indent(last),
        rank=rank,
        returncode=done.returncode,
        last_lines=last,
        outputs=outputs,
    )
