"""Start worker scripts with ``torchrun`` from a notebook, and see every rank's output (Lab 5, week 7).

Why not ``torch.multiprocessing.spawn`` of a function defined in a notebook: the
function cannot be pickled into the spawned workers, and ``fork`` after torch
has started its threads can hang. So the worker code lives in a file (the
notebook writes it with ``%%writefile`` into :func:`work_dir`) and
:func:`torchrun` starts it exactly as a cluster job would::

    torchrun --standalone --nnodes=1 --nproc-per-node=N script.py ARGS...

``--standalone`` starts the rendezvous (a c10d TCP store) on ``localhost:0``:
the operating system picks a free port for every launch and the workers reuse
that store, so parallel launches (several graders, CI jobs) never fight over a
fixed port. Each worker gets ``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``,
``MASTER_ADDR`` and ``MASTER_PORT`` in its environment, so the script only calls
``torch.distributed.init_process_group("gloo")`` (``"nccl"`` on GPUs).

What :func:`torchrun` adds around the command:

- each rank's stdout and stderr go to their own log files (``--redirects 3``);
  the launcher follows the files and prints every new line into the notebook
  as ``[rank R] line`` (both streams on the notebook's stdout: a worker's
  warning does not count as an error of the cell that launched it);
- ``OMP_NUM_THREADS=1`` (``threads_per_worker``) in every worker: N processes
  times the default thread count would oversubscribe a small machine;
  ``PYTHONPATH`` starts with ``cwd`` (so workers import the modules found
  there), ``GLOO_SOCKET_IFNAME=lo`` on Linux (one machine: loopback);
- a small bootstrap (``_torchrun_boot.py``) runs the agent and each worker:
  it records how each rank ended, and leaves without the second or so that
  interpreter teardown with torch loaded costs per process;
- a timeout: after ``timeout_s`` it kills the agent and every worker
  (:class:`LaunchTimeout`); on a failure, a timeout or an interrupt (the
  notebook's stop button) nothing is left running: the agent and the workers
  die with their parent (``PR_SET_PDEATHSIG``) and the launcher kills every
  process that carries this launch's marker in its environment;
- a clear error: :class:`LaunchError` names the rank that failed first, its
  exception, and its last lines of output;
- results: a worker calls :func:`save_result(obj) <save_result>` and the
  notebook finds ``obj`` in ``LaunchResult.results[rank]``.

Worker side: :func:`save_result`, :func:`worker_rank`. Notebook side:
:func:`torchrun`, :func:`work_dir` (a private folder for the files the notebook
writes), :func:`load_module` (import a module the notebook just wrote, afresh),
:func:`torchrun_command`, :func:`multinode_command` and :func:`slurm_script`
(the same job on a cluster). Hidden tests' checkers start their ranks with
:func:`forked_ranks`: the same ranks, forked from one process that imported
torch once, because a test cell launches several of them; while grading,
:func:`torchrun` itself starts its ranks that way (a lab's answers launch their
own workers, and a class of 300 would otherwise pay 1 + N torch imports per
launch); ``HPML_GRADING_LAUNCHER=torchrun`` grades with the real agent.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import pickle
import shutil
import sys
import tempfile
import types
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .cluster_jobs import multinode_command, slurm_script, torchrun_command
from .config import grading
from .rank_processes import (
    LAUNCH_ID_ENV,
    RESULT_DIR_ENV,
    LaunchError,
    LaunchResult,
    LaunchTimeout,
    _checked_launch,
    _follow,
    _indent,
    _RankLog,
    _read_statuses,
    _root_cause_rank,
    _saved_results,
    _worker_env,
    pids_with_env,
    remove_stale_folders,
)

# what notebooks use as launch.X (the errors and the result come from rank_processes, shared with mpi)
__all__ = [
    "DEFAULT_TIMEOUT_S",
    "LAUNCH_ID_ENV",
    "RESULT_DIR_ENV",
    "LaunchError",
    "LaunchResult",
    "LaunchTimeout",
    "load_module",
    "multinode_command",
    "pids_with_env",
    "save_result",
    "slurm_script",
    "torchrun",
    "torchrun_command",
    "work_dir",
    "worker_rank",
]

DEFAULT_TIMEOUT_S = 300.0
GRADING_LAUNCHER_ENV = "HPML_GRADING_LAUNCHER"
BOOT_FILE = Path(__file__).resolve().with_name("_torchrun_boot.py")


# --------------------------------------------------------------------------- worker side


def worker_rank() -> int | None:
    """This process's rank when started by :func:`torchrun` (``RANK``) or ``mpiexec`` (MPICH's ``PMI_RANK``,
    Open MPI's ``OMPI_COMM_WORLD_RANK``), else None."""
    for name in ("RANK", "PMI_RANK", "OMPI_COMM_WORLD_RANK"):
        rank = os.environ.get(name)
        if rank is not None and rank.isdigit():
            return int(rank)
    return None


def save_result(obj: Any) -> Path:
    """In a worker: hand ``obj`` (tensors, numbers, lists, dicts...) back to the notebook.

    The launching notebook finds it in ``LaunchResult.results[rank]``. Saved with
    ``torch.save`` in a rank that imported torch, else with ``pickle`` (an MPI rank
    of numpy arrays does not pay torch's import, 2.5 CPU seconds, to report);
    call it once per rank (a second call replaces the first).
    Raises RuntimeError outside a worker started by :func:`torchrun`.
    """
    folder = os.environ.get(RESULT_DIR_ENV)
    rank = worker_rank()
    if not folder or rank is None:
        raise RuntimeError(
            "save_result() only works in a worker started by hpml_lab_utils.launch.torchrun or hpml_lab_utils.mpi.mpiexec"
        )
    if "torch" in sys.modules:
        import torch

        path, save = Path(folder) / f"result-rank{rank}.pt", torch.save
    else:
        path, save = Path(folder) / f"result-rank{rank}.pkl", _pickle_to
    tmp = path.with_suffix(".tmp")
    save(obj, tmp)
    os.replace(tmp, path)
    return path


def _pickle_to(obj: Any, path: Path) -> None:
    with open(path, "wb") as f:
        pickle.dump(obj, f)


# --------------------------------------------------------------------------- notebook side

_WORK_DIR: dict[int, Path] = {}  # process id -> this process's folder for worker files


def work_dir() -> Path:
    """This process's private folder for the files a notebook writes for its workers (Lab 5).

    A fresh temporary folder (``hpml-workers-*`` under the system's temporary
    folder), made on the first call and removed when the process exits; every
    later call in the same process returns the same folder. Writing worker code
    there (``%%writefile {LAB_DIR}/name.py`` with ``LAB_DIR = launch.work_dir()``)
    leaves no copies of it next to the notebook, and two notebooks running at the
    same time never overwrite each other's files.
    """
    folder = _WORK_DIR.get(os.getpid())
    if folder is None or not folder.is_dir():
        remove_stale_folders("hpml-workers-")
        folder = Path(tempfile.mkdtemp(prefix=f"hpml-workers-{os.getpid()}-")).resolve()
        _WORK_DIR[os.getpid()] = folder
        atexit.register(shutil.rmtree, folder, True)
    return folder


def load_module(name: str, folder: str | os.PathLike | None = None) -> types.ModuleType:
    """Import ``<folder>/<name>.py`` afresh (default folder: :func:`work_dir`) and return the module.

    For modules a notebook writes with ``%%writefile``: every call reads the file
    again (no cached bytecode), so the notebook sees what the workers will run.
    The module is registered in ``sys.modules[name]``, replacing an older copy.
    """
    folder = Path(folder) if folder is not None else work_dir()
    path = (folder / f"{name}.py").resolve()
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist: run the cell that writes it (%%writefile {name}.py) first")
    source = path.read_text()
    module = types.ModuleType(name)
    module.__file__ = str(path)
    module.__spec__ = importlib.util.spec_from_file_location(name, path)
    old = sys.modules.get(name)
    sys.modules[name] = module
    try:
        exec(compile(source, str(path), "exec"), module.__dict__)
    except BaseException:
        if old is not None:
            sys.modules[name] = old
        else:
            sys.modules.pop(name, None)
        raise
    return module


def _run_and_report(
    command: list[str],
    cwd: Path,
    child_env: dict,
    work: str,
    log_dir: str,
    launch_id: str,
    nproc: int,
    shown: list[str],
    timeout_s: float,
    stream: bool,
    tail_lines: int,
    launcher: str = "torchrun",
) -> LaunchResult:
    """Run the launcher (``launcher`` names it in errors), follow the ranks' logs until it ends (or the timeout),
    kill what is left, report."""
    done = _follow(
        command, cwd, child_env, [_RankLog(r) for r in range(nproc)], log_dir, launch_id, shown, timeout_s, stream
    )
    outputs, agent_tail, timed_out = done.outputs, done.launcher_lines, done.timed_out
    statuses = _read_statuses(work)
    if timed_out:
        running = [r for r in range(nproc) if r not in statuses]
        parts = [
            f"{launcher} timed out after {timeout_s:g} s (timeout_s) and was killed with its {nproc} worker(s); "
            f"rank(s) still running: {running or f'none ({launcher} itself hung)'}"
        ]
        for r in running or list(range(nproc)):
            parts.append(f"last lines of rank {r}:\n" + _indent(outputs[r][-max(3, tail_lines // 3) :]))
        raise LaunchTimeout(
            "\n".join(parts), rank=None, returncode=None, last_lines=list(agent_tail)[-tail_lines:], outputs=outputs
        )
    if done.returncode != 0:
        failed = sorted((s for s in statuses.values() if not s.get("ok")), key=lambda s: s.get("time", 0.0))
        rank = failed[0]["rank"] if failed else _root_cause_rank(list(agent_tail))
        if rank is None:
            crashed = [r for r in range(nproc) if r not in statuses]
            rank = crashed[0] if crashed else None
        if rank is None or rank not in outputs:
            raise LaunchError(
                f"{launcher} failed (exit code {done.returncode}) before any rank could report; its last lines:\n"
                + _indent(list(agent_tail)[-tail_lines:]),
                rank=None,
                returncode=done.returncode,
                last_lines=list(agent_tail)[-tail_lines:],
                outputs=outputs,
            )
        status = statuses.get(rank)
        why = (
            status["error"]
            if status and status.get("error")
            else "it exited without a Python exception (crashed or killed)"
        )
        last = outputs[rank][-tail_lines:]
        raise LaunchError(
            f"rank {rank} of {nproc} failed first ({why}); {launcher} exit code {done.returncode}. "
            f"Last {len(last)} line(s) of rank {rank}:\n" + _indent(last),
            rank=rank,
            returncode=done.returncode,
            last_lines=last,
            outputs=outputs,
        )
    return LaunchResult(
        command=shown,
        nproc=nproc,
        returncode=done.returncode,
        elapsed_s=done.elapsed_s,
        outputs=outputs,
        results=_saved_results(work, nproc),
    )


def torchrun(
    script: str | os.PathLike,
    nproc: int = 2,
    args: Iterable[Any] = (),
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    cwd: str | os.PathLike | None = None,
    env: dict[str, str] | None = None,
    stream: bool = True,
    tail_lines: int = 15,
    threads_per_worker: int = 1,
) -> LaunchResult:
    """Run ``script`` on ``nproc`` local processes with ``torchrun --standalone`` (Lab 5, week 7).

    ``args`` are passed to the script (``sys.argv[1:]``; the script's folder is
    first on its ``sys.path``, as with ``python script.py``). ``cwd`` (default:
    the current folder) is the workers' working folder and comes next on their
    ``PYTHONPATH``. ``env`` adds environment variables.
    With ``stream=True`` each line a rank writes is printed as ``[rank R] line``
    while it runs. Raises :class:`LaunchError` when a rank fails (naming the
    first one and quoting its last ``tail_lines`` lines) and
    :class:`LaunchTimeout` after ``timeout_s`` seconds; in both cases, and on
    KeyboardInterrupt, every process of the launch is killed first.
    Returns a :class:`LaunchResult`. In a grading kernel the ranks are forked as
    :func:`forked_ranks` forks them (:func:`forks_while_grading`).
    """
    script, cwd = _checked_launch(script, nproc, timeout_s, cwd, "worker script")
    args = [str(a) for a in args]
    shown = torchrun_command(script.name if script.parent == cwd else script, nproc, args)
    if forks_while_grading():
        # the ranks, environment, errors and result of torchrun, without its agent's 1 + nproc torch imports
        ranks = _ranks_command(script, nproc, args)
        launcher = "torchrun (ranks forked while grading)"
        return _launch(ranks, launcher, shown, cwd, nproc, env, timeout_s, stream, tail_lines, threads_per_worker)

    def agent(log_dir: str) -> list[str]:
        return [
            sys.executable,
            str(BOOT_FILE),
            "agent",
            "--standalone",
            "--nnodes=1",
            f"--nproc-per-node={nproc}",
            "--max-restarts=0",
            "--monitor-interval=0.1",
            "--redirects=3",
            f"--log-dir={log_dir}",
            str(BOOT_FILE),
            "worker",
            str(script),
            *args,
        ]

    return _launch(agent, "torchrun", shown, cwd, nproc, env, timeout_s, stream, tail_lines, threads_per_worker)


def forked_ranks(
    script: str | os.PathLike,
    nproc: int = 2,
    args: Iterable[Any] = (),
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    cwd: str | os.PathLike | None = None,
    env: dict[str, str] | None = None,
    stream: bool = True,
    tail_lines: int = 15,
    threads_per_worker: int = 1,
) -> LaunchResult:
    """:func:`torchrun`'s ranks without its agent: one process imports torch once and forks the ``nproc`` ranks.

    The ranks see what torchrun's workers see (``RANK``, ``WORLD_SIZE``, ``MASTER_ADDR``,
    ``MASTER_PORT``; ``init_process_group`` connects to the launcher's store as to
    torchrun's agent's), and the arguments, errors and result are :func:`torchrun`'s.
    A launch costs one torch import instead of 1 + ``nproc`` (about 2.5 CPU seconds
    each): what the hidden tests' many short checker launches need
    (:func:`hpml_lab_utils.worker_checks.run_checker`). Notebooks teach torchrun.
    """
    script, cwd = _checked_launch(script, nproc, timeout_s, cwd, "worker script")
    args = [str(a) for a in args]
    shown = ["python", BOOT_FILE.name, "ranks", str(nproc), "LOG_DIR", script.name, *args]
    ranks = _ranks_command(script, nproc, args)
    return _launch(
        ranks, "the forked launch", shown, cwd, nproc, env, timeout_s, stream, tail_lines, threads_per_worker
    )


def forks_while_grading() -> bool:
    """True in a grading kernel (nbgrader's), unless ``HPML_GRADING_LAUNCHER=torchrun`` asks for the real agent."""
    return grading() and os.environ.get(GRADING_LAUNCHER_ENV, "forked").strip().lower() != "torchrun"


def _ranks_command(script: Path, nproc: int, args: list[str]) -> Callable[[str], list[str]]:
    def ranks(log_dir: str) -> list[str]:
        return [sys.executable, str(BOOT_FILE), "ranks", str(nproc), log_dir, str(script), *args]

    return ranks


def _launch(
    command: Callable[[str], list[str]],
    launcher: str,
    shown: list[str],
    cwd: Path,
    nproc: int,
    env: dict[str, str] | None,
    timeout_s: float,
    stream: bool,
    tail_lines: int,
    threads_per_worker: int,
) -> LaunchResult:
    """Run ``command(log_dir)`` with every rank's environment, in a launch folder of its own; report how it ended."""
    remove_stale_folders("hpml-launch-")
    work = tempfile.mkdtemp(prefix=f"hpml-launch-{os.getpid()}-")
    log_dir = os.path.join(work, "logs")
    launch_id = uuid.uuid4().hex
    gloo = {}
    if (
        sys.platform.startswith("linux")
        and os.path.exists("/sys/class/net/lo")
        and "GLOO_SOCKET_IFNAME" not in os.environ
    ):
        gloo["GLOO_SOCKET_IFNAME"] = "lo"  # one machine: gloo talks over loopback
    child_env = _worker_env(cwd, work, launch_id, int(threads_per_worker), gloo | (env or {}))
    try:
        return _run_and_report(
            command(log_dir),
            cwd,
            child_env,
            work,
            log_dir,
            launch_id,
            nproc,
            shown,
            timeout_s,
            stream,
            tail_lines,
            launcher,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
