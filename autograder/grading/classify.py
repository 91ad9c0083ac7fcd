"""A finished (or killed) worker's outcome as a status and a one-line reason: pure functions, no processes.

:func:`unscored_outcome` decides the runs whose grades are not kept (the
worker was killed, crashed, or nbgrader did not finish the notebook);
:func:`scored_outcome` names the status of a run whose grades were merged
(late, a cell over its limit, a kernel that died part way, tampering). The
statuses are those of :mod:`autograder.records`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from ..limits import Limits
from ..records import GRADED, GRADER_ERROR, KERNEL_DIED, LATE, MEMORY_LIMIT, TAMPERED, TIMED_OUT
from .job import Progress, WorkerResult

KEPT = "the cells after it did not run; tests that passed before it keep their points"


@dataclass
class Outcome:
    status: str
    message: str  # unscored: the whole reason; scored: the notes after the failed tests
    score: float | None = 0.0  # unscored runs only: 0, or None for a grader error (graded again next run)
    timed_out_cells: list[str] = field(default_factory=list)


def cells_text(cells: list[str]) -> str:
    return ", ".join(dict.fromkeys(cells))


def _timed_out(result: WorkerResult | None, progress: Progress) -> list[str]:
    cells = (result.timed_out_cells if result else []) or progress.timed_out
    return list(dict.fromkeys(cells))


def unscored_outcome(
    result: WorkerResult | None,
    progress: Progress,
    limits: Limits,
    *,
    killed: bool,
    returncode: int | None,
    ran_s: float,
    log_ref: str = "",
    ended_as: str = "",
) -> Outcome | None:
    """The outcome of a run whose grades are not kept, or None when the worker scored the notebook.

    ``killed``: the main process stopped the worker at the hard wall limit;
    ``returncode``: the worker's exit code; ``ran_s``: how long it ran;
    ``ended_as``: how a Slurm task ended when that, not the worker, decides
    (cancelled, node failure, never started: graded again by the next run).
    """
    timed_out = _timed_out(result, progress)

    def wall_limit(how: str) -> Outcome:
        cells = list(dict.fromkeys(timed_out + ([progress.cell] if progress.cell else [])))
        where = f"; cells over the limit: {cells_text(cells)}" if cells else ""
        message = f"the notebook ran over its wall limit of {limits.notebook_timeout_s:g} s and {how}{where}"
        return Outcome(TIMED_OUT, message, 0.0, cells)

    if killed:
        return wall_limit("its grading was stopped")
    if result is None:
        if ended_as:
            return Outcome(GRADER_ERROR, f"{ended_as}; the next run grades it again {log_ref}", None)
        if returncode == -9:
            return Outcome(MEMORY_LIMIT, f"the grading process was killed (SIGKILL), most likely for memory {log_ref}")
        return Outcome(GRADER_ERROR, f"the grading worker exited with code {returncode} and no result {log_ref}", None)
    if result.success:
        return None
    if result.killed_for() == "notebook_timeout" or (result.kernel_died and ran_s >= limits.notebook_timeout_s):
        return wall_limit("its kernel was killed")
    if result.kernel_died:
        cell = result.dead_cell or progress.cell
        if result.memory_error_cells:
            return Outcome(MEMORY_LIMIT, f"the kernel died out of memory in {cell}")
        signals = result.memory_signals()
        if signals:
            return Outcome(
                MEMORY_LIMIT,
                f"the kernel was killed (signal {signals[0]}) in {cell or 'the notebook'}, "
                "most likely over the memory limit",
            )
        return Outcome(
            KERNEL_DIED,
            f"the kernel died in {cell or 'the notebook'} (os._exit, a crash or a signal); nothing after it could run",
        )
    if timed_out:  # interrupted, but the kernel never answered again (it ignores SIGINT)
        return Outcome(
            TIMED_OUT,
            f"ran over the cell limit of {limits.cell_timeout_s} s in {cells_text(timed_out)} "
            "and did not stop when interrupted; grading was stopped",
            0.0,
            timed_out,
        )
    return Outcome(GRADER_ERROR, f"{result.error or 'unknown error'} {log_ref}", None)


def scored_outcome(
    result: WorkerResult, limits: Limits, seconds_late: float, extended_to: datetime | None = None
) -> Outcome:
    """The status of a run whose grades were merged, and its notes; the last matching rule wins.

    Order: late, then a cell over its limit, then where the notebook stopped,
    then ``MemoryError``, then tampering (which asks for a human to look).
    """
    notes, status = [], GRADED
    timed_out = list(dict.fromkeys(result.timed_out_cells))
    stopped = result.stopped or {}
    due = "the due date" if extended_to is None else f"their extended due date ({extended_to:%Y-%m-%d %H:%M} UTC)"
    if seconds_late > 0:
        status = LATE
        notes.append(f"submitted {seconds_late / 3600:.1f} h after {due}")
    elif extended_to is not None:
        notes.append(f"extension: due {extended_to:%Y-%m-%d %H:%M} UTC")
    if timed_out:
        status = TIMED_OUT
        over = [c for c in timed_out if not (stopped.get("why") == "wall" and c == stopped.get("cell"))]
        if over:
            notes.append(f"ran over the cell limit of {limits.cell_timeout_s} s in {cells_text(over)}")
    if stopped:
        cell = stopped.get("cell", "?")
        if stopped.get("why") == "died":
            signals = result.memory_signals()
            status = MEMORY_LIMIT if signals else KERNEL_DIED
            how = (
                f"was killed (signal {signals[0]}), most likely over the memory limit"
                if signals
                else "died (os._exit, a crash or a signal)"
            )
            notes.append(f"the kernel {how} in {cell}; {KEPT}")
        elif stopped.get("why") == "stuck":
            status = TIMED_OUT
            notes.append(f"{cell} did not stop when interrupted; {KEPT}")
        else:
            status = TIMED_OUT
            notes.append(f"the notebook reached its wall limit of {limits.notebook_timeout_s:g} s in {cell}; {KEPT}")
    memory = list(dict.fromkeys(result.memory_error_cells))
    if memory:
        status = MEMORY_LIMIT
        notes.append(f"MemoryError in {cells_text(memory)}")
    tampering = list(result.tampering)
    if tampering:
        status = TAMPERED
        notes.append("tampering: " + "; ".join(tampering[:5]) + (" ..." if len(tampering) > 5 else ""))
    return Outcome(status, "; ".join(notes), None, timed_out)
