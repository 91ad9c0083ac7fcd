"""Bootstrap of :func:`hpml_lab_utils.launch.torchrun` and :func:`~hpml_lab_utils.launch.forked_ranks`: run by path.

    python _torchrun_boot.py agent  TORCHRUN_ARGS...                     # the torchrun agent
    python _torchrun_boot.py worker SCRIPT SCRIPT_ARGS...                # one rank, started by torchrun
    python _torchrun_boot.py ranks  NPROC LOG_DIR SCRIPT SCRIPT_ARGS...  # NPROC ranks forked from one process

Standard library only at the top, so that it adds nothing to a worker's start-up.
Every mode first asks Linux to SIGKILL this process when its parent dies
(``PR_SET_PDEATHSIG``): the agent dies with the notebook's kernel and every
worker dies with the agent, so a killed kernel or agent leaves no orphan behind.

``agent`` runs ``torch.distributed.run`` (what the ``torchrun`` command runs).
``worker`` runs ``SCRIPT`` as ``__main__`` (as ``python SCRIPT`` would: its
folder first on ``sys.path``) and writes ``status-rank<RANK>.json`` into
``$HPML_LAUNCH_DIR`` when it ends: ``{"ok": true}`` or the exception, so the
launcher can say which rank failed first and why. Both leave with ``os._exit``
once their output is flushed: interpreter teardown with torch loaded takes most
of a second per process, and a launch has 1 + N of them.

``ranks`` does the agent's job in one process that imports torch once: it forks
``NPROC`` workers (each a ``worker`` as above, with torchrun's environment and
``LOG_DIR/ranks/attempt_0/<rank>/std{out,err}.log`` files), then hosts the
rendezvous store the workers connect to, and kills the others as soon as one
fails, as torchrun's agent does. It forks before any torch operation has run
and before any thread exists, which is what makes the fork safe.
"""

import json
import os
import runpy
import signal
import sys
import time
import traceback


def _die_with_parent() -> None:
    if not sys.platform.startswith("linux"):
        return
    parent = os.getppid()
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _write_status(status: dict) -> None:
    folder = os.environ.get("HPML_LAUNCH_DIR")
    if not folder:
        return
    rank = os.environ.get("RANK", "0")
    path = os.path.join(folder, f"status-rank{rank}.json")
    try:
        with open(path + ".tmp", "w") as f:
            json.dump(dict(status, rank=int(rank), time=time.time()), f)
        os.replace(path + ".tmp", path)
    except OSError:
        pass


def _worker(argv: list) -> int:
    script = os.path.abspath(argv[0])
    sys.argv = [script] + list(argv[1:])
    sys.path[0] = os.path.dirname(script)
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        _write_status({"ok": code == 0, "exit_code": code, "error": None if code == 0 else f"SystemExit: {exc.code}"})
        if code and not isinstance(exc.code, int) and exc.code is not None:
            print(exc.code, file=sys.stderr)  # sys.exit("message") prints its message
        return code
    except BaseException as exc:  # noqa: BLE001 - whatever the script raised goes to the status file
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename in (__file__, "<frozen runpy>"):
            tb = tb.tb_next  # show the script's frames, not this bootstrap's
        traceback.print_exception(type(exc), exc, tb)
        sys.stderr.flush()
        message = " ".join(str(exc).split())
        _write_status(
            {
                "ok": False,
                "exit_code": 1,
                "error": f"{type(exc).__name__}: {message}" if message else type(exc).__name__,
            }
        )
        return 1
    _write_status({"ok": True, "exit_code": 0, "error": None})
    return 0


def _exit_now(code: int) -> None:
    """Flush and leave without interpreter teardown: with torch loaded it takes most of a second."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(code)


def _agent(argv: list) -> int:
    sys.argv = ["torchrun"] + list(argv)
    sys.path[0] = os.getcwd()  # as `python -m torch.distributed.run` would
    try:
        runpy.run_module("torch.distributed.run", run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - printed: torchrun's summary
        traceback.print_exc()  # torchrun's summary of the failed workers (ChildFailedError)
        return 1
    return 0


def _become_rank(rank: int, nproc: int, port: str, log_dir: str) -> None:
    """In a forked child: torchrun's environment for ``rank``, and its output into its own log files."""
    os.environ.update(
        {
            "RANK": str(rank),
            "LOCAL_RANK": str(rank),
            "GROUP_RANK": "0",
            "WORLD_SIZE": str(nproc),
            "LOCAL_WORLD_SIZE": str(nproc),
            "MASTER_ADDR": "127.0.0.1",
            "MASTER_PORT": port,
            "TORCHELASTIC_USE_AGENT_STORE": "True",  # connect to the launcher's store, as to torchrun's agent's
        }
    )
    folder = os.path.join(log_dir, "ranks", "attempt_0", str(rank))
    os.makedirs(folder, exist_ok=True)
    for fd, name in ((1, "stdout.log"), (2, "stderr.log")):
        target = os.open(os.path.join(folder, name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(target, fd)
        os.close(target)
    if "numpy.random" in sys.modules:
        sys.modules["numpy.random"].seed()  # each rank its own global numpy stream (`random` reseeds itself)


def _mentions_optimizers(script: str) -> bool:
    """Does the script name ``torch.optim`` (or an optimizer)? A guess that only decides what loads before the forks."""
    try:
        with open(script, encoding="utf-8", errors="replace") as f:
            return "optim" in f.read()
    except OSError:
        return False


def _ranks(argv: list) -> int:
    nproc, log_dir, script, args = int(argv[0]), argv[1], argv[2], argv[3:]
    import torch.distributed as dist  # once, before the forks: every rank shares the loaded library

    if _mentions_optimizers(script):
        import torch._dynamo  # noqa: F401 - what an optimizer's first call imports (2 CPU s), once instead of per rank

    children: dict[int, int] = {}  # pid -> rank
    port_pipes: list[int] = []
    for rank in range(nproc):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            for other in port_pipes + [write_end]:
                os.close(other)
            _die_with_parent()
            port = os.read(read_end, 16).decode()  # the store's port, once the launcher has one
            if not port:
                os._exit(1)  # the launcher died first
            _become_rank(rank, nproc, port, log_dir)
            _exit_now(_worker([script, *args]))
        os.close(read_end)
        children[pid] = rank
        port_pipes.append(write_end)
    # the store comes after the forks: it starts a thread, and a process with threads must not fork
    store = dist.TCPStore("127.0.0.1", 0, nproc, is_master=True, wait_for_workers=False)
    for write_end in port_pipes:
        os.write(write_end, str(store.port).encode())
        os.close(write_end)
    first_failure = None
    while children:
        pid, status = os.wait()
        rank = children.pop(pid, None)
        code = os.waitstatus_to_exitcode(status)
        if rank is None or code == 0 or first_failure is not None:
            continue
        first_failure = (rank, code)
        for other in children:  # they would wait for the failed rank until their collectives time out
            os.kill(other, signal.SIGKILL)
    if first_failure is not None:
        rank, code = first_failure  # in the words of torchrun's summary, which the launcher reads for a crashed rank
        print(f"Root Cause (first observed failure): rank: {rank} (exit code {code}); the other ranks were stopped")
        return 1
    return 0


def main() -> int:
    if len(sys.argv) < 3 or sys.argv[1] not in ("agent", "worker", "ranks"):
        print(
            "usage: _torchrun_boot.py agent TORCHRUN_ARGS... | worker SCRIPT ARGS... | ranks NPROC LOG_DIR SCRIPT ARGS...",
            file=sys.stderr,
        )
        return 2
    _die_with_parent()
    mode, rest = sys.argv[1], sys.argv[2:]
    _exit_now({"worker": _worker, "agent": _agent, "ranks": _ranks}[mode](rest))
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
