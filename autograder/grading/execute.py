"""The ``Execute`` preprocessor a grading worker runs: it tracks the cell in flight and keeps partial credit.

:func:`tracking_execute_class` wraps the configured nbgrader ``Execute``: it
writes the job's :class:`~autograder.grading.job.Progress` before each cell, notes the
cells that ran over their limit, cuts outputs over the lab's limit
(:func:`cap_outputs`), and when the kernel dies, does not answer after an
interrupt, or the notebook reaches its soft wall limit, it sends no further
cells: they get a ``NotRun`` error (zero for their tests) while the tests that
passed before keep their points.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from hpml_lab_utils.recorded import RECORD_MIME

from ..isolation.tamper import GUARD_MIME, add_grader_error
from ..labs import cell_label, is_test_cell
from ..limits import Limits
from ..records import NOT_RUN_KEY
from .job import DEADLINE_ENV, Progress

STUCK_AFTER_INTERRUPT_S = 10  # a kernel that has not answered this long after an interrupt is taken as stuck
MAX_RECORD_BYTES = 16 << 20  # a test cell's recorded results, outside the notebook's output limit


def notebook_deadline_s() -> float | None:
    """Seconds left before this notebook's soft wall limit (``$HPML_NOTEBOOK_DEADLINE``, a Unix time), or None."""
    try:
        return float(os.environ[DEADLINE_ENV]) - time.time()
    except (KeyError, ValueError):
        return None


def not_run_reason(stopped: dict) -> str:
    """Why the cells after ``stopped["cell"]`` did not run, in words."""
    cell = stopped["cell"]
    return {
        "died": f"the kernel died in {cell}",
        "stuck": f"the kernel did not stop when interrupted in {cell}",
        "wall": f"the notebook reached its time limit in {cell}",
    }[stopped["why"]]


def tracking_execute_class(job: Path, base=None, max_output_bytes: int = Limits().max_output_bytes):
    """The configured ``Execute`` preprocessor (``base``), plus a note of the cell in flight and of every cell that timed out.

    It also keeps the points of tests that passed before a notebook went wrong: when the kernel dies,
    does not answer after an interrupt, or the notebook reaches its soft wall limit
    (``$HPML_NOTEBOOK_DEADLINE``; a cell still running then is interrupted at it), the remaining code
    cells are not sent to the kernel but get a ``NotRun`` error output (zero for their tests), and
    nbgrader goes on to save the grades of everything that ran. ``stopped`` says what happened where.
    """
    from nbclient.exceptions import CellTimeoutError, DeadKernelError
    from nbgrader.preprocessors import Execute

    class TrackingExecute(base or Execute):
        _job = job
        _current = ""
        timed_out: list = []
        stopped: dict = {}

        def preprocess(self, nb, resources=None, km=None):
            type(self).timed_out = []
            type(self).stopped = {}
            self._output_bytes = 0
            left = notebook_deadline_s()
            self._deadline = None if left is None else time.monotonic() + left
            for cell in nb.cells:  # only this run may say a cell did not run
                cell.get("metadata", {}).pop(NOT_RUN_KEY, None)
            return super().preprocess(nb, resources, km)

        def _get_timeout(self, cell) -> int | None:
            """The cell limit, or less when the notebook's soft wall limit comes first."""
            limit = super()._get_timeout(cell)
            if self._deadline is None:
                return limit
            left = max(1, int(self._deadline - time.monotonic()))
            return left if limit is None else min(limit, left)

        def _past_deadline(self) -> bool:
            return self._deadline is not None and time.monotonic() >= self._deadline - 0.5

        def _mark_not_run(self, cell, message: str) -> None:
            cell.outputs = [o for o in cell.get("outputs", []) if o.get("output_type") != "error"]
            add_grader_error(cell, "NotRun", message)
            cell.metadata[NOT_RUN_KEY] = message

        def preprocess_cell(self, cell, resources, index, **kwargs):
            self._current = cell_label(cell, index)
            if cell.cell_type != "code":
                return super().preprocess_cell(cell, resources, index, **kwargs)
            if not type(self).stopped and self._past_deadline():
                type(self).stopped = {"why": "wall", "cell": self._current}
            if type(self).stopped:
                cell.outputs = []
                self._mark_not_run(cell, f"not run: {not_run_reason(type(self).stopped)}")
                return cell, resources
            self._progress = Progress(
                self._current, index, time.time(), _kernel_pid(self.km), list(type(self).timed_out)
            )
            self._progress.write(self._job)
            try:
                cell, resources = super().preprocess_cell(cell, resources, index, **kwargs)
            except DeadKernelError:
                type(self).stopped = {"why": "died", "cell": self._current}
                self._mark_not_run(cell, "the kernel died while this cell ran (os._exit, a crash or a signal)")
            except CellTimeoutError:  # interrupted, and the kernel never went idle again
                type(self).stopped = type(self).stopped or {"why": "stuck", "cell": self._current}
                self._mark_not_run(cell, "this cell ran over its time limit and did not stop when interrupted")
            _, self._output_bytes = cap_outputs(cell, max_output_bytes, self._output_bytes)
            return cell, resources

        async def _async_handle_timeout(self, timeout, cell=None):
            type(self).timed_out.append(self._current)
            progress = getattr(self, "_progress", None) or Progress(self._current)
            progress.timed_out = list(type(self).timed_out)
            progress.write(self._job)
            reply = await super()._async_handle_timeout(timeout, cell)  # interrupts the kernel
            if self._past_deadline():
                type(self).stopped = {"why": "wall", "cell": self._current}
            elif not await self._answers():
                type(self).stopped = {"why": "stuck", "cell": self._current}
            return reply

        async def _answers(self) -> bool:
            """Whether the kernel replies to a request within STUCK_AFTER_INTERRUPT_S (it queues behind a running cell)."""
            try:
                await self.kc.kernel_info(reply=True, timeout=STUCK_AFTER_INTERRUPT_S)
                return True
            except (TimeoutError, RuntimeError):
                return False

    return TrackingExecute


def _kernel_pid(km) -> int | None:
    """The kernel's process id (its session id too: jupyter_client starts kernels in a new session)."""
    provisioner = getattr(km, "provisioner", None)
    pid = getattr(provisioner, "pid", None) or getattr(getattr(provisioner, "process", None), "pid", None)
    return int(pid) if pid else None


def cap_outputs(cell, limit: int, used: int = 0) -> tuple[bool, int]:
    """Cut a cell's outputs so that the notebook's outputs stay within ``limit`` bytes; return (cut?, bytes used).

    ``used``: bytes the notebook's earlier cells already used. Text beyond the
    limit is cut (a note says so); rich outputs beyond it are dropped; error
    outputs are always kept (they are how a test fails), and so are the tamper
    guard's markers (:data:`~autograder.isolation.tamper.GUARD_MIME`), which the audit reads and removes, and a
    test cell's recorded results up to :data:`MAX_RECORD_BYTES` per cell (they are how it passes; the judge reads
    and removes them): student output before a test cannot push its results out.
    """
    if cell.get("cell_type") != "code" or limit <= 0:
        return False, used
    cut, kept, records = False, [], 0
    test = is_test_cell(cell)
    note = f"\n[output cut: over the limit of {limit} bytes of output per notebook]\n"
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream":
            if used >= limit:
                cut = True
                continue
            text = out.get("text", "")
            data = text.encode("utf-8", "replace")
            if used + len(data) > limit:
                out["text"] = data[: limit - used].decode("utf-8", "ignore") + note
                used, cut = limit, True
            else:
                used += len(data)
        elif kind in ("display_data", "execute_result"):
            if GUARD_MIME in out.get("data", {}):
                kept.append(out)  # the tamper guard's marker: the audit needs it, it is removed after
                continue
            size = sum(len(str(v)) for v in out.get("data", {}).values())
            if test and RECORD_MIME in out.get("data", {}):
                records += size
                if records <= MAX_RECORD_BYTES:
                    kept.append(out)
                else:
                    cut = True
                continue
            if used + size > limit:
                cut = True
                continue
            used += size
        kept.append(out)
    if cut:
        cell["outputs"] = kept
    return cut, used
