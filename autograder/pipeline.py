"""The instructor pipeline on top of nbgrader: generate, validate, grade one student, grade a class, feedback, export.

Every step drives nbgrader's Python classes with the course configuration
(``nbgrader_config.py``, loaded explicitly, so the current directory does not
matter) and the folders of a :class:`~autograder.paths.CoursePaths`.

Grading is per student, each in a worker process of its own
(:mod:`autograder.worker`, forked from this process after it imported nbgrader
once, or started as ``python -m autograder.worker`` with
``HPML_WORKER_START=subprocess``), in a new session so that the per-notebook
wall limit kills the worker, its kernel and whatever they started. A worker
runs nbgrader ``autograde`` for one student against a private copy of the
gradebook (copied after the lab is registered) and writes the autograded
notebook into that student's folder. This process is the only writer of the
real gradebook and of ``statuses.json``: :func:`grade_tasks` merges each
finished student's rows (:func:`merge_submission`, replacing their previous
submission) and only then records the status, with Ctrl-C held for that
moment, so an interrupted run leaves a gradebook the next run completes.
:func:`grade_one` grades one submission the same way; :func:`autograde_class`
grades a folder or zip, skipping unchanged submissions that already have a
final result for the same lab version (unless ``force``).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import hashlib
import io
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Mapping

import nbformat
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from . import records
from .kernels import ensure_kernels
from .paths import CONFIG_FILE, RELEASE_DIRNAME, CoursePaths
from .records import (
    FINAL,
    GRADED,
    GRADER_ERROR,
    INVALID_NOTEBOOK,
    KERNEL_DIED,
    LATE,
    MEMORY_LIMIT,
    TAMPERED,
    TIMED_OUT,
    GradeResult,
    StatusStore,
    scored_in_gradebook,
)
from .submissions import STUDENT_ID, InvalidNotebook, Submission, discover, extract_zip, read_notebook, unwrap

COURSE_ID = "hpml"
ENV_FOR_KERNELS = {"HPML_FAST": "1"}


class PipelineError(RuntimeError):
    """A step failed for a reason that is not one student's submission (a broken lab, a missing kernel...)."""


# --------------------------------------------------------------------------- set-up


def ensure_tools_on_path() -> None:
    """nbgrader starts the ``alembic`` executable to create a gradebook: put this Python's ``bin`` on PATH."""
    bindir = str(Path(sys.executable).parent)
    if shutil.which("alembic") is None and bindir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")


def load_config(paths: CoursePaths | None = None) -> Config:
    """Load ``autograder/nbgrader_config.py`` and point it at the folders of ``paths``."""
    paths = paths or CoursePaths.from_env()
    ensure_tools_on_path()
    cfg = PyFileConfigLoader(CONFIG_FILE.name, path=str(CONFIG_FILE.parent)).load_config()
    cd = cfg.CourseDirectory
    cd.course_id = COURSE_ID
    cd.root = str(paths.root)
    cd.source_directory = "solutions"
    cd.release_directory = RELEASE_DIRNAME if paths.release == paths.root / RELEASE_DIRNAME else str(paths.release)
    cd.submitted_directory = str(paths.submitted)
    cd.autograded_directory = str(paths.autograded)
    cd.feedback_directory = str(paths.feedback)
    cd.db_url = paths.db_url
    return cfg


@contextlib.contextmanager
def kernel_env() -> Iterator[None]:
    """Environment the grading kernels inherit: ``HPML_FAST=1`` (small problem sizes)."""
    old = {k: os.environ.get(k) for k in ENV_FOR_KERNELS}
    os.environ.update(ENV_FOR_KERNELS)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@dataclass
class RunLog:
    success: bool
    log: str
    error: str = ""

    def last_error(self) -> str:
        """The most telling error line of the run, for a one-line message."""
        generic = ("Please see the", "There was an error processing assignment", "Traceback (most recent call last)")
        lines = [l.strip() for l in (self.log + "\n" + self.error).splitlines() if l.strip()]
        # nbgrader logs the root cause first ("Kernel died while waiting for execute reply."), then generic lines
        errors = [l.removeprefix("[ERROR]").strip() for l in lines
                  if l.startswith("[ERROR]") and not any(g in l for g in generic)]
        exceptions = [re.sub(r"^(\w+\.)+", "", l) for l in lines
                      if re.match(r"^[\w.]*(Error|Exception|Interrupt)\b[^:]*:", l)
                      and "NbGraderException" not in l]
        pick = errors[0] if errors else exceptions[-1] if exceptions else (lines[-1] if lines else "unknown error")
        return pick[:300]


def run_nbgrader(app_class, coursedir_attrs: dict, cfg: Config, **app_attrs) -> RunLog:
    """Start one nbgrader converter with its log captured (nothing reaches the console)."""
    from nbgrader.coursedir import CourseDirectory

    logger = logging.getLogger("autograder.nbgrader")
    logger.propagate = False
    logger.setLevel(logging.INFO)
    buf = io.StringIO()
    handler = logging.StreamHandler(buf)
    handler.setFormatter(logging.Formatter("[%(levelname)s] %(message)s"))
    logger.addHandler(handler)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SQLAlchemy SAWarnings on new students, nbformat id warnings
            coursedir = CourseDirectory(config=cfg, log=logger)
            for k, v in coursedir_attrs.items():
                setattr(coursedir, k, v)
            app = app_class(coursedir=coursedir, config=cfg, log=logger)
            for k, v in app_attrs.items():
                setattr(app, k, v)
            try:
                app.start()
            except BaseException as exc:  # nbgrader raises NbGraderException after logging; keep Ctrl-C working
                if isinstance(exc, KeyboardInterrupt):
                    raise
                return RunLog(False, buf.getvalue(), traceback.format_exc())
        return RunLog(True, buf.getvalue())
    finally:
        logger.removeHandler(handler)


def gradebook(paths: CoursePaths):
    from nbgrader.api import Gradebook

    ensure_tools_on_path()
    paths.work.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Gradebook(paths.db_url, COURSE_ID)


# --------------------------------------------------------------------------- labs


def list_labs(paths: CoursePaths | None = None) -> list[str]:
    """Every folder of ``solutions/`` that holds a notebook, sorted."""
    paths = paths or CoursePaths.from_env()
    return sorted(p.name for p in paths.source.iterdir()
                  if p.is_dir() and not p.name.startswith(".") and any(p.glob("*.ipynb")))


def source_notebooks(lab: str, paths: CoursePaths) -> list[Path]:
    """The lab's source notebooks in ``solutions/<lab>/``; :class:`PipelineError` if there are none."""
    folder = paths.source / lab
    found = sorted(folder.glob("*.ipynb")) if folder.is_dir() else []
    if not found:
        raise PipelineError(f"no lab {lab!r} in {paths.source} (labs there: {', '.join(list_labs(paths)) or 'none'})")
    return found


def notebook_names(lab: str, paths: CoursePaths) -> list[str]:
    return [p.stem for p in source_notebooks(lab, paths)]


@dataclass(frozen=True)
class GradeCellInfo:
    grade_id: str
    points: float
    autograded: bool  # a code test cell (not a manually graded answer)
    notebook: str


def grade_cells(notebook: Path) -> list[GradeCellInfo]:
    """The graded cells of one (source or release) notebook, in order, from its nbgrader metadata."""
    nb = nbformat.read(notebook, as_version=4)
    cells = []
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            autograded = cell.cell_type == "code" and not meta.get("solution")
            cells.append(GradeCellInfo(meta["grade_id"], float(meta.get("points", 0)), autograded, notebook.stem))
    return cells


def lab_grade_cells(lab: str, paths: CoursePaths) -> list[GradeCellInfo]:
    return [c for nb in source_notebooks(lab, paths) for c in grade_cells(nb)]


# --------------------------------------------------------------------------- generate


def generate_lab(lab: str, paths: CoursePaths | None = None, cfg: Config | None = None) -> list[Path]:
    """``nbgrader generate_assignment`` of one lab into ``paths.release`` (forced); return the released notebooks.

    Also records the lab (cells, points, hidden tests) in the gradebook, which
    autograding needs.
    """
    from nbgrader.converters import GenerateAssignment

    paths = paths or CoursePaths.from_env()
    cfg = cfg or load_config(paths)
    names = notebook_names(lab, paths)
    paths.work.mkdir(parents=True, exist_ok=True)
    run = run_nbgrader(GenerateAssignment, {"assignment_id": lab}, cfg, force=True, create_assignment=True)
    if not run.success:
        raise PipelineError(f"generate {lab} failed: {run.last_error()}")
    out = [paths.release / lab / f"{n}.ipynb" for n in names]
    missing = [str(p) for p in out if not p.exists()]
    if missing:
        raise PipelineError(f"generate {lab}: nbgrader wrote no {', '.join(missing)}")
    return out


def register_lab(lab: str, paths: CoursePaths, cfg: Config | None = None) -> list[Path]:
    """Record the current source of ``lab`` in the gradebook (via a release into the grading folder)."""
    scratch = dataclasses.replace(paths, release=paths.scratch_release)
    return generate_lab(lab, scratch, load_config(scratch) if cfg is None else _with_release(cfg, scratch))


def _with_release(cfg: Config, paths: CoursePaths) -> Config:
    new = copy.deepcopy(cfg)
    new.CourseDirectory.release_directory = str(paths.release)
    return new


# --------------------------------------------------------------------------- validate


@dataclass
class LabValidation:
    lab: str
    test_cells: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def validate_lab(lab: str, paths: CoursePaths | None = None, cfg: Config | None = None) -> LabValidation:
    """Every source notebook passes all its tests; every released notebook fails every autograded test.

    Uses nbgrader's ``Validator`` (``nbgrader validate`` exits 0 even when tests
    fail) with the grading rule of :mod:`autograder.scoring` (stderr output does
    not fail a test cell), and ``invert=True`` for the release.
    """
    from .scoring import ValidatorByTests as Validator

    paths = paths or CoursePaths.from_env()
    cfg = cfg or load_config(paths)
    report = LabValidation(lab)
    sources = source_notebooks(lab, paths)
    ensure_kernels(sources)
    for src in sources:
        tests = [c for c in grade_cells(src) if c.autograded]
        report.test_cells += len(tests)
        rel = paths.release / lab / src.name
        with kernel_env(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = Validator(config=cfg).validate(str(src))
            for kind in ("type_changed", "changed", "failed"):
                for cell in res.get(kind, []):
                    detail = (cell.get("raw_error") or "").strip().splitlines()[-1:] or [""]
                    report.problems.append(f"source {src.name}: {kind} test cell: "
                                           f"{_first_line(cell['source'])} {detail[0]}".rstrip())
            if not rel.exists():
                report.problems.append(f"release {rel} is missing: run `python -m autograder generate {lab}`")
                continue
            res = Validator(config=cfg, invert=True).validate(str(rel))
            for kind in ("type_changed", "changed", "passed"):
                for cell in res.get(kind, []):
                    report.problems.append(f"release {rel.name}: test cell {kind} "
                                           f"(the untouched release must fail it): {_first_line(cell['source'])}")
    return report


def _first_line(source: str) -> str:
    lines = [l for l in source.splitlines() if l.strip()]
    return (lines[0][:80] + " ...") if lines else "<empty>"


# --------------------------------------------------------------------------- grade one student


def _forget(lab: str, student_id: str, paths: CoursePaths, *, gradebook_too: bool) -> None:
    """Remove what an earlier grading of this student's lab left (files, and optionally the gradebook entry)."""
    from nbgrader.api import MissingEntry
    from nbgrader.utils import rmtree

    for base in (paths.submitted, paths.autograded, paths.feedback):
        folder = base / student_id / lab
        if folder.exists():
            rmtree(str(folder))
    if gradebook_too and paths.gradebook.exists():
        with gradebook(paths) as gb:
            try:
                gb.remove_submission(lab, student_id)
            except MissingEntry:
                pass


def _lab_registered(lab: str, paths: CoursePaths) -> bool:
    from nbgrader.api import MissingEntry

    if not paths.gradebook.exists():
        return False
    with gradebook(paths) as gb:
        try:
            assignment = gb.find_assignment(lab)
        except MissingEntry:
            return False
        return {n.name for n in assignment.notebooks} == set(notebook_names(lab, paths))


def graded_message(failed: list[str], manual_pending: float, note: str = "", unanswered: list[str] = (),
                   n_tests: int = 0, n_written: int = 0) -> str:
    """One line for the instructor: failed autograded tests, unanswered and pending written answers, notes."""
    parts = []
    if failed:
        many = n_tests > 3 and len(failed) == n_tests
        parts.append(f"failed: all {n_tests} autograded tests" if many else "failed: " + ", ".join(failed))
    if unanswered:
        many = n_written > 3 and len(unanswered) == n_written
        parts.append(f"unanswered: all {n_written} written answers" if many else "unanswered: " + ", ".join(unanswered))
    if manual_pending:
        parts.append(f"{manual_pending:g} point{'' if manual_pending == 1 else 's'} of written answers "
                     + ("awaits" if manual_pending == 1 else "await") + " manual grading")
    if note:
        parts.append(note)
    return "; ".join(parts)


@dataclass
class Scores:
    """A submission's points as the gradebook has them now."""

    score: float
    max_score: float
    failed: list[str]  # autograded test cells that lost points, in notebook order
    unanswered: list[str]  # manually graded answers left as released (nbgrader gives them 0)
    manual_pending: float  # points of answers waiting for a human grader
    n_tests: int = 0  # autograded test cells of the lab
    n_written: int = 0  # manually graded answers of the lab

    def message(self, note: str = "") -> str:
        return graded_message(self.failed, self.manual_pending, note, self.unanswered, self.n_tests, self.n_written)


def gradebook_scores(lab: str, student_id: str, paths: CoursePaths, cells: list[GradeCellInfo] | None = None,
                     gb=None) -> Scores:
    """Read one submission's points from the gradebook (``MissingEntry`` if there is none); ``gb``: one already open."""
    order = {c.grade_id: i for i, c in enumerate(cells or [])}
    autograded = {c.grade_id for c in cells or [] if c.autograded}
    with contextlib.ExitStack() as stack:
        gb = gb or stack.enter_context(gradebook(paths))
        sub = gb.find_submission(lab, student_id)
        failed, unanswered, pending = [], [], 0.0
        for nb in sub.notebooks:
            for g in nb.grades:
                is_test = g.name in autograded if cells else g.cell.cell_type == "code"
                if g.manual_score is not None:
                    continue
                if g.needs_manual_grade:
                    pending += float(g.max_score)
                elif g.auto_score is not None and g.auto_score < g.max_score:
                    (failed if is_test else unanswered).append(g.name)
        key = lambda gid: (order.get(gid, len(order)), gid)  # noqa: E731
        return Scores(float(sub.score), float(sub.max_score), sorted(failed, key=key),
                      sorted(unanswered, key=key), pending, len(autograded), len(cells or []) - len(autograded))


# --------------------------------------------------------------------------- limits and versions


@dataclass(frozen=True)
class GradingLimits:
    """The limits one lab is graded under (what the worker and the main process enforce).

    ``cell_timeout_s``: nbgrader's ``Execute.timeout`` (a cell over it is
    interrupted, scores zero, and the rest of the notebook still runs).
    ``notebook_timeout_s``: wall limit of one submission's whole grading; over
    it the worker's process group, its kernel and their children are killed.
    ``max_output_bytes``: outputs of a cell beyond it are cut.
    ``lab_limits``: the per-lab :class:`autograder.limits.Limits` when that
    module exists (memory, processes... enforced by the sandboxed kernel).
    """

    cell_timeout_s: int = 120
    notebook_timeout_s: float = 900.0
    max_output_bytes: int = 1_000_000
    lab_limits: object = None

    def describe(self) -> str:
        return (f"cell {self.cell_timeout_s} s, notebook {self.notebook_timeout_s:g} s, "
                f"output {self.max_output_bytes} bytes per cell")


def _env_number(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, "") or default)
    except ValueError:
        return default


def grading_limits(lab: str, paths: CoursePaths | None = None) -> GradingLimits:
    """The limits of ``lab``: :func:`autograder.limits.limits_for` (or ``$HPML_SANDBOX_LIMITS`` when set).

    ``$HPML_CELL_TIMEOUT``, ``$HPML_NOTEBOOK_TIMEOUT`` and ``$HPML_MAX_OUTPUT_BYTES``
    override either (the tests use short limits that way).
    """
    try:
        from . import limits as limits_module
    except ImportError:  # pragma: no cover - the module ships with the package
        limits_module = None
    lab_limits = None
    if limits_module is not None:
        env_set = bool(os.environ.get(limits_module.ENV_VAR, "").strip())
        lab_limits = limits_module.Limits.from_env() if env_set else limits_module.limits_for(lab)
    cell = int(_env_number("HPML_CELL_TIMEOUT", getattr(lab_limits, "cell_timeout_s", 120)))
    notebook = int(_env_number("HPML_NOTEBOOK_TIMEOUT", getattr(lab_limits, "notebook_timeout_s", 900)))
    output = int(_env_number("HPML_MAX_OUTPUT_BYTES", getattr(lab_limits, "max_output_bytes", 1_000_000)))
    if lab_limits is not None:
        lab_limits = dataclasses.replace(lab_limits, cell_timeout_s=cell, notebook_timeout_s=notebook,
                                         max_output_bytes=output)
    return GradingLimits(cell_timeout_s=cell, notebook_timeout_s=float(notebook), max_output_bytes=output,
                         lab_limits=lab_limits)


WALL_GRACE_S = 30.0  # the main process kills a worker this long after the kernel's own notebook limit


def _sha256(chunks) -> str:
    h = hashlib.sha256()
    for chunk in chunks:
        h.update(chunk if isinstance(chunk, bytes) else str(chunk).encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


def lab_version(lab: str, paths: CoursePaths, limits: GradingLimits) -> str:
    """A hash of what a grade depends on besides the submission: the lab's source notebooks and its limits."""
    sources = source_notebooks(lab, paths)
    return _sha256([p.name for p in sources] + [p.read_bytes() for p in sources]
                   + [limits.cell_timeout_s, limits.notebook_timeout_s, limits.max_output_bytes, repr(limits.lab_limits)])


def submission_hash(notebooks: Mapping[str, Path], timestamp: Path | None = None) -> str:
    """A hash of the submitted files (and ``timestamp.txt``): equal hashes, equal submissions."""
    chunks: list = []
    for name in sorted(notebooks):
        path = Path(notebooks[name])
        chunks += [name, path.read_bytes() if path.is_file() else b"<missing>"]
    if timestamp is not None and timestamp.is_file():
        chunks += ["timestamp.txt", timestamp.read_bytes()]
    return _sha256(chunks)


def _timestamp_file(sub: Submission) -> Path | None:
    """nbgrader's ``timestamp.txt`` of a submission: in the student's folder or beside the notebook."""
    places = [sub.folder / "timestamp.txt"] + [Path(p).parent / "timestamp.txt" for p in sub.notebooks.values()]
    return next((p for p in places if p.is_file()), None)


# --------------------------------------------------------------------------- grade: one worker per student


@dataclass
class GradingTask:
    """One submission to grade: where it is, and what the main process prepared for its worker."""

    student_id: str
    notebooks: dict[str, Path]
    note: str = ""
    folder: Path | None = None
    timestamp: Path | None = None
    problem: str = ""
    sub_hash: str = ""
    # set when its worker runs
    job: Path | None = None
    proc: subprocess.Popen | None = None
    started: float = 0.0
    ended: float = 0.0
    killed: bool = False


def _interrupts_deferred():
    """Hold Ctrl-C while a result is merged and recorded (it takes effect right after)."""

    @contextlib.contextmanager
    def ctx():
        import signal
        import threading

        if threading.current_thread() is not threading.main_thread():
            yield
            return
        pending = []
        old = signal.signal(signal.SIGINT, lambda *a: pending.append(a))
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, old)
            if pending:
                raise KeyboardInterrupt

    return ctx()


def _sessions(pids: set[int]) -> set[int]:
    sids = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            sids.add(os.getsid(pid))
    return sids


def kill_job(proc: subprocess.Popen, kernel_pid: int | None = None) -> None:
    """SIGKILL a worker, its process group, its kernel's session and everything they started.

    jupyter_client starts each kernel in a session of its own, so killing the
    worker's group is not enough: the kernel's session (its pid) and every
    descendant's session go too, including forks that outlived their parent.
    """
    import signal

    from .sandbox import descendants

    pids = descendants(proc.pid) | {proc.pid}
    sessions = (_sessions(pids) | {proc.pid} | ({kernel_pid} if kernel_pid else set())) - {os.getsid(0)}
    for _ in range(3):  # a fork bomb can add processes while we kill: sweep a few times
        for stat in Path("/proc").glob("[0-9]*"):
            with contextlib.suppress(OSError, ValueError):
                if os.getsid(int(stat.name)) in sessions:
                    pids.add(int(stat.name))
        for sid in sessions:
            with contextlib.suppress(OSError):
                os.killpg(sid, signal.SIGKILL)
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        pids = set()
    with contextlib.suppress(Exception):
        proc.wait(timeout=10)


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS")


def kernel_threads(jobs: int) -> dict[str, str]:
    """Thread caps for each grading kernel: the cores shared among ``jobs`` kernels (at least 1).

    Without them every kernel starts one thread per core, and ``jobs`` kernels
    oversubscribe the machine: busy-waiting OpenMP threads (Numba's ``parallel=True``,
    torch) then starve each other and ratio tests measure the contention.
    """
    threads = str(max(1, default_jobs() // max(1, jobs)))
    return {name: threads for name in THREAD_VARIABLES}


def _start_worker(lab: str, task: GradingTask, paths: CoursePaths, snapshot: Path, limits: GradingLimits,
                  jobs: int = 1) -> None:
    from . import worker

    job = paths.work / "jobs" / lab / task.student_id
    if job.exists():
        shutil.rmtree(job)
    job.mkdir(parents=True)
    shutil.copyfile(snapshot, job / worker.GRADEBOOK)
    dest = paths.submitted / task.student_id / lab
    dest.mkdir(parents=True, exist_ok=True)
    for name, path in task.notebooks.items():
        shutil.copyfile(path, dest / f"{name}.ipynb")
    if task.timestamp is not None:
        shutil.copyfile(task.timestamp, dest / "timestamp.txt")
    env = dict(os.environ, HPML_COURSE_ROOT=str(paths.root), HPML_GRADING_DIR=str(paths.work),
               HPML_CELL_TIMEOUT=str(limits.cell_timeout_s), HPML_MAX_OUTPUT_BYTES=str(limits.max_output_bytes),
               **ENV_FOR_KERNELS)
    env.update(kernel_threads(jobs))
    # the worker stops sending cells at this soft limit and saves the grades of what ran, before the hard kill
    env["HPML_NOTEBOOK_DEADLINE"] = str(time.time() + limits.notebook_timeout_s - soft_limit_margin_s(limits))
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    if limits.lab_limits is not None and hasattr(limits.lab_limits, "to_env"):
        limits.lab_limits.to_env(env)
    task.job, task.started = job, time.perf_counter()
    if worker_start_method() == "fork":
        task.proc = _ForkedWorker.start(worker.child_main, lab, task.student_id, str(job), env)
        return
    cmd = [sys.executable, "-m", "autograder.worker", "--lab", lab, "--student", task.student_id, "--job", str(job)]
    with open(job / "worker.out", "wb") as out:
        task.proc = subprocess.Popen(cmd, cwd=str(job), env=env, stdin=subprocess.DEVNULL, stdout=out,
                                     stderr=subprocess.STDOUT, start_new_session=True)


def worker_start_method() -> str:
    """How workers start: ``fork`` (default: forked from this process, which imported nbgrader once) or
    ``subprocess`` (``python -m autograder.worker``, a fresh interpreter each, about 3 s slower a submission).
    ``$HPML_WORKER_START`` chooses."""
    method = os.environ.get("HPML_WORKER_START", "").strip().lower() or "fork"
    if method not in ("fork", "subprocess"):
        raise PipelineError(f"HPML_WORKER_START={method!r}: expected fork or subprocess")
    if method == "fork" and not hasattr(os, "fork"):
        return "subprocess"
    return method


def preload_worker_modules() -> None:
    """Import what a worker needs before forking it, once, so that no worker pays for it."""
    import importlib

    from .worker import PRELOAD

    for name in PRELOAD:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    with contextlib.suppress(Exception):  # probe bubblewrap once here: forked workers inherit the answer
        from . import sandbox

        sandbox.isolation_level()


class _ForkedWorker:
    """A worker forked from this process, behind the part of ``Popen``'s interface the batch uses."""

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None

    @classmethod
    def start(cls, target, *args) -> "_ForkedWorker":
        preload_worker_modules()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the worker: never returns into the caller's code
            code = 1
            try:
                target(*args)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except BaseException:  # noqa: BLE001
                with contextlib.suppress(Exception):
                    traceback.print_exc()
            finally:
                os._exit(code)
        return cls(pid)

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                self.returncode = -9
                return self.returncode
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                break
            time.sleep(0.01)
        return self.returncode


def merge_submission(lab: str, student_id: str, private_db: Path, paths: CoursePaths, dst=None) -> None:
    """Copy one student's submission of ``lab`` from a worker's gradebook into the real one, replacing theirs.

    Copies the submission (timestamp, extension), each submitted notebook's
    flag and late penalty, every grade (auto/manual score, extra credit,
    needs manual grade) and every comment (auto/manual). The main process is
    the only caller: it is the single writer of the real gradebook. ``dst``:
    the real gradebook when the caller has it open already.
    """
    from nbgrader.api import Gradebook, MissingEntry

    with warnings.catch_warnings(), contextlib.ExitStack() as stack:
        warnings.simplefilter("ignore")
        src = stack.enter_context(Gradebook(f"sqlite:///{private_db}", COURSE_ID))
        dst = dst or stack.enter_context(gradebook(paths))
        sub = src.find_submission(lab, student_id)
        student = sub.student
        try:
            dst.remove_submission(lab, student_id)
        except MissingEntry:
            pass
        dst.update_or_create_student(student_id, first_name=student.first_name, last_name=student.last_name,
                                     email=student.email)
        kwargs = {"timestamp": sub.timestamp} if sub.timestamp is not None else {}
        dst.add_submission(lab, student_id, **kwargs)
        target = dst.find_submission(lab, student_id)
        target.extension = sub.extension
        for nb in sub.notebooks:
            tnb = dst.find_submission_notebook(nb.name, lab, student_id)
            tnb.flagged = nb.flagged
            tnb.late_submission_penalty = nb.late_submission_penalty
            grades = {g.name: g for g in tnb.grades}
            for g in nb.grades:
                t = grades[g.name]
                t.auto_score, t.manual_score, t.extra_credit = g.auto_score, g.manual_score, g.extra_credit
                t.needs_manual_grade = g.needs_manual_grade
            comments = {c.name: c for c in tnb.comments}
            for c in nb.comments:
                t = comments[c.name]
                t.auto_comment, t.manual_comment = c.auto_comment, c.manual_comment
        dst.db.commit()


def _seconds_late(lab: str, student_id: str, paths: CoursePaths, gb=None) -> float:
    with contextlib.ExitStack() as stack:
        gb = gb or stack.enter_context(gradebook(paths))
        try:
            return float(gb.find_submission(lab, student_id).total_seconds_late or 0)
        except Exception:  # noqa: BLE001: no due date, no timestamp
            return 0.0


def _cells_text(cells: list[str]) -> str:
    return ", ".join(dict.fromkeys(cells))


def _finish_task(lab: str, task: GradingTask, paths: CoursePaths, limits: GradingLimits,
                 cells: list[GradeCellInfo], lab_max: float, version: str) -> GradeResult:
    """Turn a finished (or killed) worker into a :class:`GradeResult`; merge its grades when it scored."""
    from . import worker

    job = task.job
    res = _read_json(job / worker.RESULT)
    progress = _read_json(job / worker.PROGRESS) or {}
    log_file = paths.logs / lab / f"{task.student_id}.log"
    log_file.parent.mkdir(parents=True, exist_ok=True)
    parts = []
    for name in (worker.LOG, "worker.out"):
        with contextlib.suppress(OSError):
            parts.append((job / name).read_text(encoding="utf-8", errors="replace")[-200_000:])
    log_file.write_text("\n".join(parts), encoding="utf-8")
    log_ref = f"(log: {_rel_to(log_file, paths.work)})"
    seconds = (task.ended or time.perf_counter()) - task.started

    def done(status: str, score, message: str, failed=(), **extra) -> GradeResult:
        return GradeResult(student_id=task.student_id, status=status, score=score, max_score=lab_max,
                           message="; ".join(x for x in (message, task.note) if x), lab=lab,
                           failed_tests=list(failed), note=task.note, submission_hash=task.sub_hash,
                           lab_version=version, seconds=round(seconds, 2), **extra)

    def unscored(status: str, score, message: str, **extra) -> GradeResult:
        _forget(lab, task.student_id, paths, gradebook_too=True)
        return done(status, score, message, in_gradebook=False, **extra)

    stuck = progress.get("cell", "")
    timed_out = list(dict.fromkeys((res or {}).get("timed_out_cells") or progress.get("timed_out") or []))

    def wall_limit(how: str) -> GradeResult:
        cells = list(dict.fromkeys(timed_out + ([stuck] if stuck else [])))
        where = f"; cells over the limit: {_cells_text(cells)}" if cells else ""
        return unscored(TIMED_OUT, 0.0, f"the notebook ran over its wall limit of {limits.notebook_timeout_s:g} s "
                        f"and {how}{where}", timed_out_cells=cells)

    if task.killed:
        return wall_limit("its grading was stopped")
    if res is None:
        code = task.proc.returncode if task.proc else None
        if code is not None and code < 0 and -code == 9:
            return unscored(MEMORY_LIMIT, 0.0, "the grading process was killed (SIGKILL), most likely for memory "
                            f"{log_ref}")
        return unscored(GRADER_ERROR, None, f"the grading worker exited with code {code} and no result {log_ref}")
    kernels = res.get("kernel") or []
    killed_for = next((k.get("killed_for") for k in kernels if k.get("killed_for")), None)
    signals = [k.get("signal") for k in kernels if k.get("signal")]
    if not res.get("success"):
        if killed_for == "notebook_timeout" or (res.get("kernel_died") and task_over_limit(task, limits)):
            return wall_limit("its kernel was killed")
        if res.get("kernel_died"):
            cell = res.get("dead_cell") or stuck
            if res.get("memory_error_cells"):
                return unscored(MEMORY_LIMIT, 0.0, f"the kernel died out of memory in {cell}")
            if any(sig in (6, 9) for sig in signals):
                sig = next(sig for sig in signals if sig in (6, 9))
                return unscored(MEMORY_LIMIT, 0.0, f"the kernel was killed (signal {sig}) in {cell or 'the notebook'}, "
                                "most likely over the memory limit")
            return unscored(KERNEL_DIED, 0.0, f"the kernel died in {cell or 'the notebook'} "
                            "(os._exit, a crash or a signal); nothing after it could run")
        if timed_out:  # interrupted, but the kernel never answered again (it ignores SIGINT)
            return unscored(TIMED_OUT, 0.0, f"ran over the cell limit of {limits.cell_timeout_s} s in "
                            f"{_cells_text(timed_out)} and did not stop when interrupted; grading was stopped",
                            timed_out_cells=timed_out)
        return unscored(GRADER_ERROR, None, f"{res.get('error') or 'unknown error'} {log_ref}")
    with gradebook(paths) as gb:  # opened once: merge, then read back what was merged
        merge_submission(lab, task.student_id, job / worker.GRADEBOOK, paths, dst=gb)
        scores = gradebook_scores(lab, task.student_id, paths, cells, gb=gb)
        late_s = _seconds_late(lab, task.student_id, paths, gb=gb)
    notes, status = [], GRADED
    memory = list(dict.fromkeys(res.get("memory_error_cells") or []))
    tampering = list(res.get("tampering") or [])
    if late_s > 0:
        status = LATE
        notes.append(f"submitted {late_s / 3600:.1f} h after the due date")
    stopped = res.get("stopped") or {}
    if timed_out:
        status = TIMED_OUT
        over = [c for c in timed_out if not (stopped.get("why") == "wall" and c == stopped.get("cell"))]
        if over:
            notes.append(f"ran over the cell limit of {limits.cell_timeout_s} s in {_cells_text(over)}")
    if stopped:
        cell, kept = stopped.get("cell", "?"), "the cells after it did not run; tests that passed before it keep their points"
        if stopped.get("why") == "died":
            status = KERNEL_DIED
            signals = [k.get("signal") for k in res.get("kernel") or [] if k.get("signal") in (6, 9)]
            if signals:
                status = MEMORY_LIMIT
            how = f"was killed (signal {signals[0]}), most likely over the memory limit" if signals \
                else "died (os._exit, a crash or a signal)"
            notes.append(f"the kernel {how} in {cell}; {kept}")
        elif stopped.get("why") == "stuck":
            status = TIMED_OUT
            notes.append(f"{cell} did not stop when interrupted; {kept}")
        else:
            status = TIMED_OUT
            notes.append(f"the notebook reached its wall limit of {limits.notebook_timeout_s:g} s in {cell}; {kept}")
    if memory:
        status = MEMORY_LIMIT
        notes.append(f"MemoryError in {_cells_text(memory)}")
    if tampering:
        status = TAMPERED
        notes.append("tampering: " + "; ".join(tampering[:5]) + (" ..." if len(tampering) > 5 else ""))
    detail = "; ".join(notes)
    result = done(status, scores.score, scores.message(detail), scores.failed,
                  timed_out_cells=timed_out, tampering=tampering, detail=detail, in_gradebook=True)
    result.max_score = scores.max_score
    return result


def soft_limit_margin_s(limits: GradingLimits) -> float:
    """Time kept between the worker's soft wall limit and the hard kill: for nbgrader to save the grades."""
    return min(30.0, max(5.0, 0.1 * limits.notebook_timeout_s))


def task_over_limit(task: GradingTask, limits: GradingLimits) -> bool:
    """Whether the task ran at least as long as the notebook's wall limit (its kernel was then killed for it)."""
    return (task.ended or time.perf_counter()) - task.started >= limits.notebook_timeout_s


def _skip_reason(lab: str, task: GradingTask, store: StatusStore, version: str, paths: CoursePaths) -> GradeResult | None:
    """The recorded result of an unchanged submission graded against the same lab version, if it is final."""
    prev = store.get(lab, task.student_id)
    if prev is None or prev.status not in FINAL or not prev.submission_hash:
        return None
    if prev.submission_hash != task.sub_hash or prev.lab_version != version:
        return None
    if scored_in_gradebook(prev):
        from nbgrader.api import MissingEntry

        with gradebook(paths) as gb:
            try:
                gb.find_submission(lab, task.student_id)
            except MissingEntry:
                return None  # recorded but not in the gradebook: grade it again
    return prev


def _snapshot_gradebook(lab: str, paths: CoursePaths) -> Path:
    """A copy of the gradebook (lab registered) for the workers to copy from; sqlite's backup API, so it is consistent."""
    import sqlite3

    snap = paths.work / "jobs" / lab / "gradebook.snapshot.db"
    snap.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.closing(sqlite3.connect(paths.gradebook)) as src, contextlib.closing(sqlite3.connect(snap)) as dst:
        src.backup(dst)
    return snap


def default_jobs() -> int:
    """The usable cores of this machine (its CPU affinity, where the platform says)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def grade_tasks(
    lab: str,
    tasks: list[GradingTask],
    paths: CoursePaths,
    *,
    jobs: int | None = None,
    limits: GradingLimits | None = None,
    on_result: Callable[[GradeResult], None] | None = None,
    bar: bool = False,
) -> list[GradeResult]:
    """Grade ``tasks`` with up to ``jobs`` worker processes; the calling process merges every result.

    Invalid submissions are settled here without a worker. ``on_result`` is
    called (with Ctrl-C held) right after each result is merged, in the order
    the workers finish; the return value follows the order of ``tasks``.
    """
    from tqdm.auto import tqdm

    jobs = max(1, jobs or default_jobs())
    limits = limits or grading_limits(lab, paths)
    cells = lab_grade_cells(lab, paths)
    lab_max = sum(c.points for c in cells)
    version = lab_version(lab, paths, limits)
    results: dict[str, GradeResult] = {}
    progress = tqdm(total=len(tasks), desc=f"grading {lab}", unit="nb", disable=not bar, leave=False)

    def settle(result: GradeResult) -> None:
        with _interrupts_deferred():
            results[result.student_id] = result
            if on_result:
                on_result(result)
        progress.update(1)

    pending = []
    for task in tasks:
        problem = task.problem
        if not problem:
            try:
                for path in task.notebooks.values():
                    read_notebook(path)
            except InvalidNotebook as exc:
                problem = str(exc)
        if problem:
            if STUDENT_ID.match(task.student_id):
                _forget(lab, task.student_id, paths, gradebook_too=True)
            settle(GradeResult(task.student_id, INVALID_NOTEBOOK, 0.0, lab_max,
                               "; ".join(x for x in (problem, task.note) if x), lab=lab, note=task.note,
                               submission_hash=task.sub_hash, lab_version=version, in_gradebook=False))
        else:
            pending.append(task)
    if pending:
        if not _lab_registered(lab, paths):
            register_lab(lab, paths)
        snapshot = _snapshot_gradebook(lab, paths)
        for task in pending:
            _forget(lab, task.student_id, paths, gradebook_too=False)
        queue, running, finished = list(pending), [], []

        def fill() -> None:
            while queue and len(running) < jobs:
                task = queue.pop(0)
                _start_worker(lab, task, paths, snapshot, limits, jobs)
                running.append(task)

        from . import worker

        try:
            while queue or running:
                fill()
                time.sleep(0.02)
                for task in list(running):
                    over = time.perf_counter() - task.started > limits.notebook_timeout_s + WALL_GRACE_S
                    if task.proc.poll() is None and not over:
                        continue
                    kernel = (_read_json(task.job / worker.PROGRESS) or {}).get("kernel_pid")
                    if task.proc.poll() is None:
                        task.killed = True
                    kill_job(task.proc, kernel)  # also sweeps what a finished kernel left running
                    task.ended = time.perf_counter()
                    running.remove(task)
                    finished.append(task)
                if finished:
                    fill()  # the next workers start first: merging overlaps with their kernels
                while finished:
                    task = finished.pop(0)
                    try:
                        with _interrupts_deferred():  # merge and record, or neither
                            try:
                                result = _finish_task(lab, task, paths, limits, cells, lab_max, version)
                            except Exception as exc:  # noqa: BLE001: a grader bug must not stop the batch
                                with contextlib.suppress(Exception):
                                    _forget(lab, task.student_id, paths, gradebook_too=True)
                                result = GradeResult(task.student_id, GRADER_ERROR, None, lab_max,
                                                     f"{type(exc).__name__}: {exc}", lab=lab, note=task.note)
                            settle(result)
                    finally:
                        shutil.rmtree(task.job, ignore_errors=True)
        finally:
            for task in running + finished:  # Ctrl-C: nothing of theirs is recorded; the next run grades them
                kill_job(task.proc)
                shutil.rmtree(task.job, ignore_errors=True)
            progress.close()
    else:
        progress.close()
    return [results[t.student_id] for t in tasks if t.student_id in results]


def grade_one(
    lab: str,
    student_id: str,
    notebook_path: Path | str | Mapping[str, Path | str] | None,
    *,
    paths: CoursePaths | None = None,
    cfg: Config | None = None,
    note: str = "",
) -> GradeResult:
    """Autograde one student's submission of ``lab`` in a worker process; never raises for a bad submission.

    ``notebook_path`` is the student's notebook (for a lab with several
    notebooks: a mapping from notebook name to file; ``None``: nothing found).
    The file is checked first (``invalid notebook`` if it is not a notebook),
    copied to ``submitted/<student>/<lab>/<name>.ipynb`` and graded; earlier
    results of this student for this lab are replaced. The caller records the
    result (:class:`StatusStore`). ``cfg`` is accepted for compatibility: the
    worker loads the course configuration itself.
    """
    paths = paths or CoursePaths.from_env()
    if not STUDENT_ID.match(student_id):
        raise ValueError(f"not a usable student id: {student_id!r}")
    names = notebook_names(lab, paths)
    if notebook_path is None:
        mapping: dict[str, Path] = {}
    elif isinstance(notebook_path, Mapping):
        mapping = {k: Path(v) for k, v in notebook_path.items()}
    else:
        mapping = {names[0]: Path(notebook_path)}
    unknown = set(mapping) - set(names)
    if unknown:
        raise ValueError(f"{lab} has no notebook(s) {sorted(unknown)}; it has {names}")
    problem = "" if mapping else "no notebook found (expected " + ", ".join(f"{n}.ipynb" for n in names) + ")"
    task = GradingTask(student_id, mapping, note=note, problem=problem, sub_hash=submission_hash(mapping))
    return grade_tasks(lab, [task], paths, jobs=1)[0]


def _inside(path: Path, folder: Path) -> bool:
    try:
        Path(path).resolve().relative_to(Path(folder).resolve())
        return True
    except ValueError:
        return False


def _rel_to(path: Path, base: Path) -> str:
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)


# --------------------------------------------------------------------------- a class


ProgressFn = Callable[[str], None]


def find_submissions(lab: str, source: Path | str, paths: CoursePaths) -> list[Submission]:
    """Students' submissions of ``lab`` in a folder or a .zip (extracted into the grading folder)."""
    source = Path(source)
    if not source.exists():
        raise PipelineError(f"{source} does not exist")
    if source.is_file():
        if source.suffix.lower() != ".zip":
            raise PipelineError(f"{source}: expected a folder or a .zip of <student_id>/<notebook>.ipynb")
        root = extract_zip(source, paths.work / "incoming" / lab)
    elif any(_inside(source, d) for d in (paths.submitted, paths.autograded, paths.feedback)):
        # grading rewrites those folders: work from a copy
        incoming = paths.work / "incoming" / lab
        if incoming.exists():
            shutil.rmtree(incoming)
        shutil.copytree(source, incoming)
        root = unwrap(incoming)
    else:
        root = unwrap(source)
    return discover(root, notebook_names(lab, paths))


def autograde_class(
    lab: str,
    source: Path | str,
    paths: CoursePaths | None = None,
    progress: ProgressFn | None = print,
    *,
    jobs: int | None = None,
    students: list[str] | None = None,
    force: bool = False,
    due: str | None = None,
    bar: bool = False,
) -> list[GradeResult]:
    """Grade every submission in ``source`` (folder or zip) with ``jobs`` worker processes (default: the cores).

    Each student is graded by a worker of its own against a private copy of
    the gradebook; this process merges each finished student into the real
    gradebook and then records the status (``statuses.json``, saved after each
    student), so an interrupted run keeps what it finished and the next run
    completes it. A submission whose file and lab version are unchanged since
    a final recorded result is not graded again unless ``force``. ``students``
    limits the run to those ids. Students of the lab that are not graded in
    this run keep their earlier results. ``due`` (ISO date and time, UTC) sets
    the lab's due date for nbgrader's late logic (``timestamp.txt``).
    """
    paths = paths or CoursePaths.from_env()
    subs = find_submissions(lab, source, paths)
    if students:
        unknown = sorted(set(students) - {s.student_id for s in subs})
        if unknown:
            raise PipelineError(f"no submission of {', '.join(unknown)} in {source}")
        subs = [s for s in subs if s.student_id in set(students)]
    ensure_kernels(source_notebooks(lab, paths))
    register_lab(lab, paths)
    if due:
        with gradebook(paths) as gb:
            gb.update_or_create_assignment(lab, duedate=due)
    limits = grading_limits(lab, paths)
    version = lab_version(lab, paths, limits)
    store = StatusStore(paths.statuses)
    tasks, reused = [], {}
    for sub in subs:
        stamp = _timestamp_file(sub)
        task = GradingTask(sub.student_id, dict(sub.notebooks), note=sub.note, folder=sub.folder, timestamp=stamp,
                           problem=sub.problem, sub_hash=submission_hash(sub.notebooks, stamp))
        prev = None if force else _skip_reason(lab, task, store, version, paths)
        if prev is not None:
            reused[sub.student_id] = prev
        else:
            tasks.append(task)
    by_id = {s.student_id: s for s in subs}
    count = [len(reused)]
    width = max([len(s.student_id) for s in subs] + [10])

    def record(result: GradeResult) -> None:
        sub = by_id[result.student_id]
        result.notebook = ", ".join(str(p.relative_to(sub.folder)) for p in sub.notebooks.values())
        store.record(result)
        store.save()
        count[0] += 1
        if progress:
            pts = "" if result.score is None else f"{result.score:g}/{result.max_score:g}"
            secs = "" if result.seconds is None else f"({result.seconds:.1f} s)"
            line = f"[{count[0]}/{len(subs)}] {result.student_id:<{width}} {result.status:<16} {pts:>9}  {secs}"
            if bar:
                from tqdm.auto import tqdm

                tqdm.write(line)
            else:
                progress(line)

    if progress and reused:
        progress(f"{len(reused)} unchanged submission(s) already graded against this lab version: kept "
                 "(--force grades them again)")
    graded = {r.student_id: r for r in grade_tasks(lab, tasks, paths, jobs=jobs, limits=limits,
                                                   on_result=record, bar=bar)}
    return [graded.get(s.student_id) or reused[s.student_id] for s in subs
            if s.student_id in graded or s.student_id in reused]


# --------------------------------------------------------------------------- feedback


def feedback_lab(lab: str, paths: CoursePaths | None = None, students: list[str] | None = None,
                 progress: ProgressFn | None = print) -> dict[str, Path | str]:
    """HTML feedback per graded student in ``feedback/<student>/<lab>/``; return student -> file or error."""
    from nbgrader.converters import GenerateFeedback

    paths = paths or CoursePaths.from_env()
    cfg = load_config(paths)
    cfg.HTMLExporter.template_name = "feedback"
    store = StatusStore(paths.statuses)
    if students is None:
        graded = {r.student_id for r in store.results(lab) if scored_in_gradebook(r)}
        on_disk = {p.parent.name for p in paths.autograded.glob(f"*/{lab}") if p.is_dir()}
        students = sorted(graded & on_disk if store.results(lab) else on_disk)
    names = notebook_names(lab, paths)
    out: dict[str, Path | str] = {}
    for sid in students:
        run = run_nbgrader(GenerateFeedback, {"assignment_id": lab, "student_id": sid}, cfg, force=True)
        files = [paths.feedback / sid / lab / f"{n}.html" for n in names]
        if run.success and all(f.exists() for f in files):
            out[sid] = files[0]
        else:
            out[sid] = f"feedback failed: {run.last_error()}"
        if progress:
            progress(f"{sid}: {out[sid]}")
    return out


# --------------------------------------------------------------------------- export


def collect_results(paths: CoursePaths | None = None, labs: list[str] | None = None) -> list[GradeResult]:
    """Statuses joined with the gradebook's current points (which include any manual grading since)."""
    from nbgrader.api import MissingEntry

    paths = paths or CoursePaths.from_env()
    store = StatusStore(paths.statuses)
    rows = {(r.lab, r.student_id): dataclasses.replace(r) for r in store.results()}
    if paths.gradebook.exists():
        with gradebook(paths) as gb:
            pairs = [(a.name, s.student.id) for a in gb.assignments for s in a.submissions]
        for lab, sid in pairs:
            rec = rows.get((lab, sid))
            if rec is None:
                rec = GradeResult(sid, GRADED, lab=lab)
                note = "graded outside this tool (no status record)"
            elif not scored_in_gradebook(rec):
                continue
            else:
                note = "; ".join(x for x in (rec.detail, rec.note) if x)
            try:
                cells = lab_grade_cells(lab, paths)
            except PipelineError:  # a lab that is no longer in solutions/
                cells = None
            try:
                scores = gradebook_scores(lab, sid, paths, cells)
            except MissingEntry:
                continue
            rec.score, rec.max_score, rec.failed_tests = scores.score, scores.max_score, scores.failed
            rec.message = scores.message(note)
            rows[(lab, sid)] = rec
    out = [r for r in rows.values() if labs is None or r.lab in labs]
    return sorted(out, key=lambda r: (r.lab, r.student_id))


def export_grades(out, paths: CoursePaths | None = None, labs: list[str] | None = None) -> list[GradeResult]:
    """Write the grade CSV (:data:`autograder.records.CSV_COLUMNS`) to a path or text stream."""
    rows = collect_results(paths, labs)
    records.write_csv(rows, out)
    return rows
