"""Run a test's checker in real worker processes and record what the ranks send (lab10's tests).

A distributed answer can only be tested where it runs: in several processes
that talk to each other. A test cell hands :func:`run_checker` the checker's
code and a JSON-able ``spec`` (seeds, shapes, cases); the checker runs on
``nproc`` ranks started by :func:`hpml_lab_utils.launch.forked_ranks` (torchrun's
ranks forked from one process: a test cell launches several checkers), by
:func:`~hpml_lab_utils.launch.torchrun` or by :func:`hpml_lab_utils.mpi.mpiexec`, from :func:`hpml_lab_utils.launch.work_dir`,
where the student's ``%%writefile`` modules are, and each rank hands back its
records with :func:`hpml_lab_utils.launch.save_result`.

In the checker (worker side)::

    from hpml_lab_utils import worker_checks as wc
    spec = wc.load_spec()
    log = wc.CommLog.install()      # before the student's module is imported
    wc.init_gloo()                  # a collective nobody completes fails in seconds, not minutes
    with log.recording() as calls:
        ...                         # calls: [{"name", "peer", "numel", "async_op"}] of this rank

:class:`MpiCommLog` wraps an mpi4py communicator the same way. Nothing here
knows an answer: the checkers compare the student's results with references
they compute themselves.
"""

from __future__ import annotations

import contextlib
import datetime
import inspect
import io
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator
from typing import Any

from . import launch

__all__ = ["CommLog", "MpiCommLog", "hidden_summary", "init_gloo", "load_spec", "run_checker"]

# torch.distributed's calls that move data between ranks
POINT_TO_POINT = {"send": "dst", "isend": "dst", "recv": "src", "irecv": "src"}
COLLECTIVES = (
    "all_reduce",
    "reduce",
    "broadcast",
    "all_gather",
    "all_gather_into_tensor",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "all_to_all",
    "all_to_all_single",
    "gather",
    "scatter",
    "barrier",
    "all_gather_object",
    "broadcast_object_list",
    "scatter_object_list",
    "gather_object",
    "send_object_list",
    "recv_object_list",
    "batch_isend_irecv",
)
# mpi4py's calls that move data; the upper-case ones take buffers (numpy arrays)
MPI_POINT_TO_POINT = ("Send", "Recv", "Sendrecv", "Isend", "Irecv", "Ssend", "Bsend", "Rsend", "Sendrecv_replace")
MPI_POINT_TO_POINT += tuple(name.lower() for name in ("Send", "Recv", "Sendrecv", "Isend", "Irecv", "Ssend"))


def run_checker(
    code: str,
    nproc: int,
    spec: dict[str, Any],
    timeout_s: float = 60.0,
    launcher: str = "forked",
) -> dict[int, Any]:
    """Run ``code`` on ``nproc`` ranks with ``spec``; return {rank: what the rank saved}.

    The ranks' output is not shown (a failing checker raises
    :class:`~hpml_lab_utils.launch.LaunchError` quoting the failing rank's last
    lines); ``timeout_s`` bounds the whole launch, start-up included.
    """
    folder = tempfile.mkdtemp(prefix="hpml-check-")
    try:
        script, spec_path = os.path.join(folder, "checker.py"), os.path.join(folder, "spec.json")
        with open(script, "w") as f:
            f.write(code)
        with open(spec_path, "w") as f:
            json.dump(spec, f)
        if launcher == "forked":
            start = launch.forked_ranks
        elif launcher == "torchrun":
            start = launch.torchrun
        elif launcher == "mpiexec":
            from .mpi import mpiexec as start
        else:
            raise ValueError(f"launcher must be 'forked', 'torchrun' or 'mpiexec', got {launcher!r}")
        with contextlib.redirect_stderr(io.StringIO()):
            done = start(script, nproc, [spec_path], timeout_s=timeout_s, cwd=launch.work_dir(), stream=False)
        missing = sorted(set(range(nproc)) - set(done.results))
        if missing:
            raise launch.LaunchError(f"ranks {missing} finished without saving their records (launch.save_result)")
        return done.results
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# --------------------------------------------------------------------------- worker side


def load_spec() -> dict[str, Any]:
    """In a checker: the ``spec`` that :func:`run_checker` was given."""
    with open(sys.argv[1]) as f:
        return json.load(f)


def init_gloo(timeout_s: float = 20.0) -> None:
    """``dist.init_process_group("gloo")`` whose collectives and receives give up after ``timeout_s`` seconds."""
    import torch.distributed as dist

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=timeout_s))


class CommLog:
    """Records torch.distributed's point-to-point and collective calls made inside :meth:`recording`.

    Each call: ``{"name": "isend", "peer": global rank or None, "numel": elements or None,
    "async_op": bool}``. A call made by another recorded call (``send`` calls ``isend``)
    is recorded once, as the outer one.
    """

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] | None = None
        self._depth = 0

    @classmethod
    def install(cls) -> CommLog:
        """Wrap the calls in ``torch.distributed`` and its ``distributed_c10d``; install before importing the code under test."""
        import torch.distributed as dist
        import torch.distributed.distributed_c10d as c10d

        log = cls()
        for name in list(POINT_TO_POINT) + list(COLLECTIVES):
            if hasattr(c10d, name):
                wrapped = log._wrap(name, getattr(c10d, name))
                setattr(c10d, name, wrapped)
                setattr(dist, name, wrapped)
        return log

    @contextlib.contextmanager
    def recording(self) -> Iterator[list[dict[str, Any]]]:
        self.calls = []
        try:
            yield self.calls
        finally:
            self.calls = None

    def _wrap(self, name: str, fn):
        signature = inspect.signature(fn)
        peer_key = POINT_TO_POINT.get(name)

        def wrapper(*args, **kwargs):
            if self.calls is not None and self._depth == 0:
                bound = signature.bind_partial(*args, **kwargs).arguments
                self.calls.append(_describe(name, bound, peer_key))
            self._depth += 1
            try:
                return fn(*args, **kwargs)
            finally:
                self._depth -= 1

        wrapper.__wrapped__ = fn
        return wrapper


def _describe(name: str, bound: dict[str, Any], peer_key: str | None) -> dict[str, Any]:
    import torch.distributed.distributed_c10d as c10d

    tensor = bound.get("tensor")
    peer = None
    if peer_key:
        peer, group, group_peer = bound.get(peer_key), bound.get("group"), bound.get("group_" + peer_key)
        if group_peer is not None:
            peer = group_peer if group is None else c10d.get_global_rank(group, group_peer)
    return {
        "name": name,
        "peer": peer,
        "numel": int(tensor.numel()) if hasattr(tensor, "numel") else None,
        "async_op": bool(bound.get("async_op", False)),
    }


class MpiCommLog:
    """An mpi4py communicator that records the calls made through it (``calls``: name, peer, elements sent).

    Every attribute is the wrapped communicator's; calls to methods are recorded
    as ``{"name": "Sendrecv", "dest": 1, "numel": 12}`` (``numel``: elements of
    the first buffer argument, the one sent).
    """

    def __init__(self, comm) -> None:
        self._comm = comm
        self.calls: list[dict[str, Any]] = []

    def __getattr__(self, name: str):
        attribute = getattr(self._comm, name)
        if not callable(attribute) or name.startswith("Get_") or name.startswith("Is_"):
            return attribute

        def recorded(*args, **kwargs):
            sent = args[0] if args else kwargs.get("sendbuf", kwargs.get("buf"))
            dest = kwargs.get("dest", args[1] if len(args) > 1 and isinstance(args[1], int) else None)
            self.calls.append({"name": name, "dest": dest, "numel": _mpi_numel(sent)})
            return attribute(*args, **kwargs)

        return recorded


def _mpi_numel(buffer: Any) -> int | None:
    """Elements in an mpi4py buffer argument: an array, or [array, ...] with a count or datatype."""
    if isinstance(buffer, (list, tuple)) and buffer:
        buffer = buffer[0]
    size = getattr(buffer, "size", None)
    return int(size) if isinstance(size, int) else None


def hidden_summary(problems: list[tuple[int, str, str]], limit: int = 3) -> str:
    """A hidden test's failure message: which cases failed and how, without the reference's values.

    ``problems``: (case index, case description, problem) as the lab's checkers list them; the
    text from ``expected`` on is cut, so feedback never quotes an answer for a hidden input.
    """
    shown = []
    for _, what, problem in problems[:limit]:
        cut = re.split(r",? expected\b", problem, maxsplit=1)[0]
        shown.append(f"{what}: {cut}" + (" (differs from the reference)" if cut != problem else ""))
    more = len(problems) - len(shown)
    return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")
