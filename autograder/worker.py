"""One student's grading in a process of its own: ``python -m autograder.worker --lab LAB --student ID --job DIR``.

Started by :func:`autograder.pipeline.grade_tasks` (one worker per
submission): forked from the main process once it has imported nbgrader
(:func:`child_main`), or as ``python -m autograder.worker`` with
``HPML_WORKER_START=subprocess``; either way in a session of its own, so that
the per-notebook wall limit can kill the worker, its kernel and anything the
student's code started, and Ctrl-C at the terminal reaches only the main
process. The kernel runs through ``autograder.sandbox`` (a scratch folder with
a copy of the student's own files, the lab's limits, bubblewrap when it works).
The
worker runs nbgrader ``autograde`` for one student against a **private copy of
the gradebook** (``DIR/gradebook.db``, copied by the main process after the lab
was registered), so workers never share a sqlite file; the main process is the
only writer of the real gradebook and merges this student's rows from the copy.

The submission is already in ``submitted/<student>/<lab>/`` (the main process
put it there); the autograded notebook goes to ``autograded/<student>/<lab>/``
as with plain nbgrader. What the worker found goes to ``DIR/result.json``:

- ``success``: nbgrader finished the notebook;
- ``error``: the most telling error line when it did not;
- ``kernel_died`` and ``dead_cell``: the kernel exited in the middle (which cell);
- ``stopped``: ``{"why": "died" | "stuck" | "wall", "cell": ...}`` when the cells after one were not
  run (the kernel died, ignored an interrupt, or the notebook reached its soft wall limit); the
  tests before it keep their points;
- ``timed_out_cells``: cells interrupted by the per-cell limit (``Execute.timeout``);
- ``memory_error_cells``: cells whose outputs hold a ``MemoryError``;
- ``tampering``: what :func:`autograder.tamper.find_tampering` reported, when it exists.

While it runs, ``DIR/progress.json`` names the cell being executed, so that a
worker killed by the wall limit still tells which cell it was stuck in.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
import traceback
from pathlib import Path

from .records import NOT_RUN_KEY

PROGRESS = "progress.json"
RESULT = "result.json"
LOG = "nbgrader.log"
GRADEBOOK = "gradebook.db"
KERNEL_REPORT = "kernel.jsonl"
KEEP_MIME_PREFIX = "application/vnd.hpml."  # outputs for the grader itself (tamper guard markers): never cut


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
    os.replace(tmp, path)


def cell_label(cell, index: int) -> str:
    """A cell's grade id, or ``cell <index>`` for a cell without nbgrader metadata."""
    gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
    return gid or f"cell {index}"


STUCK_AFTER_INTERRUPT_S = 10  # a kernel that has not answered this long after an interrupt is taken as stuck


def notebook_deadline_s() -> float | None:
    """Seconds left before this notebook's soft wall limit (``$HPML_NOTEBOOK_DEADLINE``, a Unix time), or None."""
    try:
        return float(os.environ["HPML_NOTEBOOK_DEADLINE"]) - time.time()
    except (KeyError, ValueError):
        return None


def not_run_reason(stopped: dict) -> str:
    """Why the cells after ``stopped["cell"]`` did not run, in words."""
    cell = stopped["cell"]
    return {"died": f"the kernel died in {cell}",
            "stuck": f"the kernel did not stop when interrupted in {cell}",
            "wall": f"the notebook reached its time limit in {cell}"}[stopped["why"]]


def tracking_execute_class(job: Path, base=None):
    """The configured ``Execute`` preprocessor (``base``), plus a note of the cell in flight and of every cell that timed out.

    It also keeps the points of tests that passed before a notebook went wrong: when the kernel dies,
    does not answer after an interrupt, or the notebook reaches its soft wall limit
    (``$HPML_NOTEBOOK_DEADLINE``; a cell still running then is interrupted at it), the remaining code
    cells are not sent to the kernel but get a ``NotRun`` error output (zero for their tests), and
    nbgrader goes on to save the grades of everything that ran. ``stopped`` says what happened where.
    """
    from nbclient.exceptions import CellTimeoutError, DeadKernelError
    from nbgrader.preprocessors import Execute

    from .tamper import error_output

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
            cell.outputs.append(error_output("NotRun", message))
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
            self._progress = {"cell": self._current, "index": index, "since": time.time(),
                              "kernel_pid": _kernel_pid(self.km), "timed_out": list(type(self).timed_out)}
            _write_json(self._job / PROGRESS, self._progress)
            try:
                cell, resources = super().preprocess_cell(cell, resources, index, **kwargs)
            except DeadKernelError:
                type(self).stopped = {"why": "died", "cell": self._current}
                self._mark_not_run(cell, "the kernel died while this cell ran (os._exit, a crash or a signal)")
            except CellTimeoutError:  # interrupted, and the kernel never went idle again
                type(self).stopped = type(self).stopped or {"why": "stuck", "cell": self._current}
                self._mark_not_run(cell, "this cell ran over its time limit and did not stop when interrupted")
            _, self._output_bytes = cap_outputs(cell, max_output_bytes(), getattr(self, "_output_bytes", 0))
            return cell, resources

        async def _async_handle_timeout(self, timeout, cell=None):
            type(self).timed_out.append(self._current)
            progress = dict(getattr(self, "_progress", {}), timed_out=list(type(self).timed_out))
            _write_json(self._job / PROGRESS, progress)
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


def max_output_bytes() -> int:
    """Output limit of a notebook in bytes (``$HPML_MAX_OUTPUT_BYTES``, set by the main process from the lab's limits)."""
    try:
        return int(os.environ.get("HPML_MAX_OUTPUT_BYTES", "") or 1_000_000)
    except ValueError:
        return 1_000_000


def cap_outputs(cell, limit: int, used: int = 0) -> tuple[bool, int]:
    """Cut a cell's outputs so that the notebook's outputs stay within ``limit`` bytes; return (cut?, bytes used).

    ``used``: bytes the notebook's earlier cells already used. Text beyond the
    limit is cut (a note says so); rich outputs beyond it are dropped; error
    outputs are always kept (they are how a test fails), and so are the tamper
    guard's markers (``application/vnd.hpml.*``), which the audit reads and removes.
    """
    if cell.get("cell_type") != "code" or limit <= 0:
        return False, used
    cut, kept = False, []
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
            if any(mime.startswith(KEEP_MIME_PREFIX) for mime in out.get("data", {})):
                kept.append(out)  # the tamper guard's marker: the audit needs it, it is removed after
                continue
            size = sum(len(str(v)) for v in out.get("data", {}).values())
            if used + size > limit:
                cut = True
                continue
            used += size
        kept.append(out)
    if cut:
        cell["outputs"] = kept
    return cut, used


def _error_cells(nb, names: tuple[str, ...]) -> list[str]:
    found = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error" and out.get("ename") in names:
                found.append(cell_label(cell, i))
                break
    return found


def unsynced_sqlite() -> None:
    """No fsync on commit for every SQLite database this process opens (this worker's own copy only).

    nbgrader commits some 60 times while it grades one notebook; on a disk each
    commit waits for fsync. The worker's gradebook is a scratch copy that the
    main process merges and then throws away (a crash loses nothing but this
    student's run, which is graded again), so ``synchronous=OFF`` and an
    in-memory journal are safe here. Never call this in the main process,
    which writes the real gradebook.
    """
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    if not event.contains(Engine, "connect", _no_sync):
        event.listen(Engine, "connect", _no_sync)


def _no_sync(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA synchronous=OFF")
    cursor.execute("PRAGMA journal_mode=MEMORY")
    cursor.close()


def grade(lab: str, student_id: str, job: Path) -> dict:
    """Run nbgrader autograde for one student against ``job/gradebook.db``; return what :data:`RESULT` holds."""
    import nbformat

    from . import pipeline
    from .paths import CoursePaths

    unsynced_sqlite()
    paths = CoursePaths.from_env()
    cfg = pipeline.load_config(paths)
    db_url = f"sqlite:///{job / GRADEBOOK}"
    cfg.CourseDirectory.db_url = db_url
    from nbgrader.converters import Autograde
    from nbgrader.preprocessors import Execute

    configured = cfg.Autograde.get("autograde_preprocessors") or Autograde.class_traits()["autograde_preprocessors"].default()
    base = next((p for p in configured if isinstance(p, type) and issubclass(p, Execute)), Execute)
    execute = tracking_execute_class(job, base)
    cfg.Autograde.autograde_preprocessors = [execute if p is base else p for p in configured]
    forget_submission(job / GRADEBOOK, lab, student_id)  # the copy may hold this student's previous grading
    submitted = paths.submitted / student_id / lab
    isolation = sandbox_environment(submitted, job)
    changes = []
    for name in pipeline.notebook_names(lab, paths):
        changes += cell_changes(submitted / f"{name}.ipynb", paths.scratch_release / lab / f"{name}.ipynb")
    with pipeline.kernel_env():
        run = pipeline.run_nbgrader(Autograde, {"assignment_id": lab, "student_id": student_id}, cfg,
                                    force=True, create_student=True)
    (job / LOG).write_text(run.log + ("\n" + run.error if run.error else ""), encoding="utf-8")
    text = run.log + "\n" + run.error
    result = {
        "success": run.success,
        "error": "" if run.success else run.last_error(),
        "kernel_died": ((not run.success) and ("DeadKernelError" in text or "Kernel died" in text)
                        or execute.stopped.get("why") == "died"),
        "dead_cell": execute.stopped.get("cell", "") if execute.stopped.get("why") == "died" else "",
        "stopped": dict(execute.stopped),
        "timed_out_cells": list(dict.fromkeys(execute.timed_out)),
        "memory_error_cells": [],
        "tampering": list(changes),
        "isolation": isolation,
        "kernel": kernel_report(job),
    }
    if result["kernel_died"] and not result["dead_cell"]:
        try:
            result["dead_cell"] = json.loads((job / PROGRESS).read_text())["cell"]
        except (OSError, ValueError, KeyError):
            pass
    executed = [paths.autograded / student_id / lab / f"{n}.ipynb" for n in pipeline.notebook_names(lab, paths)]
    for path in executed:
        if not (run.success and path.exists()):
            continue
        nb = nbformat.read(path, as_version=4)
        result["memory_error_cells"] += _error_cells(nb, ("MemoryError",))
        result["tampering"] += find_tampering(nb, paths, lab, path.stem)
    return result


def sandbox_environment(submitted: Path, job: Path) -> str:
    """Point the sandboxed kernel (``autograder.sandbox``, when present) at this student's scratch folder.

    The scratch folder holds a copy of the student's files as submitted (no
    hidden tests); the kernel runs there. Returns the isolation level in words.
    """
    try:
        from . import sandbox
    except ImportError:
        return "none (autograder.sandbox is missing)"
    scratch = sandbox.prepare_scratch(submitted, job / "scratch")
    os.environ[sandbox.SCRATCH_ENV] = str(scratch)
    os.environ[sandbox.REPORT_ENV] = str(job / KERNEL_REPORT)
    return sandbox.isolation_level()


def kernel_report(job: Path) -> list[dict]:
    """The sandboxed kernel manager's exit records (exit code or signal, ``killed_for``...), one per kernel."""
    try:
        lines = (job / KERNEL_REPORT).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def release_cells(release_nb: Path) -> dict[str, dict]:
    """``{grade_id: {cell_type, locked, source, points, grade}}`` of the released notebook (what students got).

    The gradebook's source cells hold the hidden tests, which no student has:
    compared with them, every test cell would look edited.
    """
    import nbformat

    out = {}
    for cell in nbformat.read(release_nb, as_version=4).cells:
        nbg = cell.metadata.get("nbgrader", {})
        if nbg.get("grade_id"):
            out[nbg["grade_id"]] = {"cell_type": cell.cell_type, "locked": bool(nbg.get("locked")),
                                    "source": cell.source, "grade": bool(nbg.get("grade")),
                                    "points": float(nbg["points"]) if nbg.get("grade") and "points" in nbg else None}
    return out


def cell_changes(submitted_nb: Path, release_nb: Path) -> list[str]:
    """Edited, deleted or re-labelled test cells and changed points (``autograder.tamper.cell_changes``)."""
    try:
        from . import tamper
    except ImportError:
        return []
    import nbformat

    if not submitted_nb.exists() or not release_nb.exists():
        return []
    nb = nbformat.read(submitted_nb, as_version=4)
    return list(tamper.cell_changes(nb, release_cells(release_nb)))


def forget_submission(db: Path, lab: str, student_id: str) -> None:
    """Remove ``student_id``'s submission of ``lab`` from the gradebook file ``db``, if it has one."""
    import warnings

    from nbgrader.api import Gradebook, MissingEntry

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with Gradebook(f"sqlite:///{db}", "hpml") as gb:
            try:
                gb.remove_submission(lab, student_id)
            except MissingEntry:
                pass


def find_tampering(executed_nb, paths, lab: str, notebook: str) -> list[str]:
    """What the tamper checks (``autograder.tamper``, when present) report for an executed notebook."""
    try:
        from . import tamper
    except ImportError:
        return []
    fn = getattr(tamper, "find_tampering", None)
    if fn is None:
        return []
    found = fn(executed_nb)
    return [str(getattr(x, "message", x)) for x in (found or [])]


#: what the main process imports once before forking workers, so that none of them pays for it (about 3 s each)
PRELOAD = ["autograder.worker", "autograder.pipeline", "autograder.sandbox", "autograder.tamper",
           "nbgrader.converters", "nbgrader.api", "nbgrader.preprocessors", "nbgrader.coursedir",
           "nbformat", "nbclient", "nbconvert", "jupyter_client", "sqlalchemy"]


def child_main(lab: str, student_id: str, job: str, env: dict) -> None:
    """Entry point of a worker forked from the main process (see ``pipeline``): the same as :func:`main`.

    It leaves the main process's session (a session and process group of its
    own, which the wall limit kills, and which Ctrl-C at the terminal does not
    reach), writes its output to ``job/worker.out`` and takes the environment
    the main process prepared.
    """
    import signal

    os.setsid()
    _fresh_event_loop()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    fd = os.open(os.path.join(job, "worker.out"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    os.chdir(job)
    os.environ.clear()
    os.environ.update(env)
    sys.exit(main(["--lab", lab, "--student", student_id, "--job", job]))


def _fresh_event_loop() -> None:
    """Give this forked worker an asyncio loop of its own for the kernel client.

    The loop inherited from the main process shares its epoll instance with the
    main process (and its thread pool has no threads left after the fork). It is
    left alone, never closed: closing it would unregister the main process's
    own file descriptors from that shared epoll and leave its loop deaf.
    """
    import asyncio

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    with contextlib.suppress(Exception):  # jupyter_core's run_sync keeps its own per-thread loop
        from jupyter_core import utils

        utils._loop.set(loop)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.worker",
                                     description="Grade one student's submission against a private gradebook "
                                                 "(started by `python -m autograder autograde`).")
    parser.add_argument("--lab", required=True)
    parser.add_argument("--student", required=True)
    parser.add_argument("--job", required=True, help="job folder: gradebook.db in, result.json out")
    args = parser.parse_args(argv)
    job = Path(args.job)
    t0 = time.perf_counter()
    try:
        result = grade(args.lab, args.student, job)
    except BaseException as exc:  # noqa: BLE001: whatever happens, say it in result.json
        if isinstance(exc, KeyboardInterrupt):
            raise
        (job / LOG).write_text(traceback.format_exc(), encoding="utf-8")
        result = {"success": False, "error": f"{type(exc).__name__}: {exc}", "kernel_died": False,
                  "dead_cell": "", "timed_out_cells": [], "memory_error_cells": [], "tampering": [],
                  "kernel": kernel_report(job)}
    result["seconds"] = time.perf_counter() - t0
    _write_json(job / RESULT, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
