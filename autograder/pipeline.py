"""The instructor pipeline on top of nbgrader: generate, validate, grade one student, grade a class, feedback, export.

Every step drives nbgrader's Python classes with the course configuration
(``nbgrader_config.py``, loaded explicitly, so the current directory does not
matter) and the folders of a :class:`~autograder.paths.CoursePaths`.

Grading is per student: :func:`grade_one` runs one nbgrader ``autograde`` for
one submission and returns a :class:`~autograder.records.GradeResult`; it never
raises for a bad submission. :func:`autograde_class` loops over a class, and is
the single writer of ``statuses.json``. (Issue 3 will run ``grade_one`` in
parallel workers and record from one writer; keep it that shape.)
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import io
import logging
import os
import re
import shutil
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
from .records import GRADED, GRADER_ERROR, INVALID_NOTEBOOK, GradeResult, StatusStore
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

    Uses :class:`nbgrader.validator.Validator` (``nbgrader validate`` exits 0 even
    when tests fail), with ``invert=True`` for the release.
    """
    from nbgrader.validator import Validator

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


def gradebook_scores(lab: str, student_id: str, paths: CoursePaths, cells: list[GradeCellInfo] | None = None) -> Scores:
    """Read one submission's points from the gradebook (``MissingEntry`` if there is none)."""
    order = {c.grade_id: i for i, c in enumerate(cells or [])}
    autograded = {c.grade_id for c in cells or [] if c.autograded}
    with gradebook(paths) as gb:
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


def grade_one(
    lab: str,
    student_id: str,
    notebook_path: Path | str | Mapping[str, Path | str] | None,
    *,
    paths: CoursePaths | None = None,
    cfg: Config | None = None,
    note: str = "",
) -> GradeResult:
    """Autograde one student's submission of ``lab`` in its own nbgrader run; never raises for a bad submission.

    ``notebook_path`` is the student's notebook (for a lab with several
    notebooks: a mapping from notebook name to file; ``None``: nothing found).
    The file is checked first (``invalid notebook`` if it is not a notebook),
    copied to ``submitted/<student>/<lab>/<name>.ipynb`` and graded; earlier
    results of this student for this lab are replaced, so re-grading is
    idempotent. The caller records the result (:class:`StatusStore`).
    """
    paths = paths or CoursePaths.from_env()
    cfg = cfg or load_config(paths)
    if not STUDENT_ID.match(student_id):
        raise ValueError(f"not a usable student id: {student_id!r}")
    cells = lab_grade_cells(lab, paths)
    lab_max = sum(c.points for c in cells)
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

    def finish(status: str, score, message: str, failed=()) -> GradeResult:
        return GradeResult(student_id=student_id, status=status, score=score, max_score=lab_max,
                           message=message, lab=lab, failed_tests=list(failed), note=note)

    _forget(lab, student_id, paths, gradebook_too=False)
    try:
        if not mapping:
            raise InvalidNotebook("no notebook found (expected " + ", ".join(f"{n}.ipynb" for n in names) + ")")
        for path in mapping.values():
            read_notebook(path)
    except InvalidNotebook as exc:
        _forget(lab, student_id, paths, gradebook_too=True)
        return finish(INVALID_NOTEBOOK, 0.0, "; ".join(x for x in (str(exc), note) if x))

    dest = paths.submitted / student_id / lab
    dest.mkdir(parents=True, exist_ok=True)
    for name, path in mapping.items():
        shutil.copyfile(path, dest / f"{name}.ipynb")

    from nbgrader.converters import Autograde

    log_file = paths.logs / lab / f"{student_id}.log"
    log_file.parent.mkdir(parents=True, exist_ok=True)
    try:
        if not _lab_registered(lab, paths):
            register_lab(lab, paths)
        with kernel_env():
            run = run_nbgrader(Autograde, {"assignment_id": lab, "student_id": student_id}, cfg,
                               force=True, create_student=True)
        log_file.write_text(run.log + ("\n" + run.error if run.error else ""), encoding="utf-8")
        if not run.success:
            _forget(lab, student_id, paths, gradebook_too=True)
            return finish(GRADER_ERROR, None, f"{run.last_error()} (log: {_rel_to(log_file, paths.work)})")
        scores = gradebook_scores(lab, student_id, paths, cells)
    except Exception as exc:  # a grader bug must not stop the batch either
        log_file.write_text(traceback.format_exc(), encoding="utf-8")
        with contextlib.suppress(Exception):
            _forget(lab, student_id, paths, gradebook_too=True)
        return finish(GRADER_ERROR, None, f"{type(exc).__name__}: {exc} (log: {_rel_to(log_file, paths.work)})")
    result = finish(GRADED, scores.score, scores.message(note), scores.failed)
    result.max_score = scores.max_score
    return result


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
) -> list[GradeResult]:
    """Grade every submission in ``source`` (folder or zip), one nbgrader run per student.

    Statuses go to ``statuses.json`` after each student (an interrupted run keeps
    what it finished). Students of the lab that are not in ``source`` keep their
    earlier results.
    """
    paths = paths or CoursePaths.from_env()
    cfg = load_config(paths)
    subs = find_submissions(lab, source, paths)
    ensure_kernels(source_notebooks(lab, paths))
    register_lab(lab, paths)
    store = StatusStore(paths.statuses)
    results = []
    width = max([len(s.student_id) for s in subs] + [10])
    for i, sub in enumerate(subs, 1):
        t0 = time.perf_counter()
        if sub.problem:
            if STUDENT_ID.match(sub.student_id):
                _forget(lab, sub.student_id, paths, gradebook_too=True)
            result = GradeResult(sub.student_id, INVALID_NOTEBOOK, 0.0, sum(c.points for c in lab_grade_cells(lab, paths)),
                                 sub.problem, lab=lab, note=sub.note)
        else:
            result = grade_one(lab, sub.student_id, sub.notebooks, paths=paths, cfg=cfg, note=sub.note)
        result.notebook = ", ".join(str(p.relative_to(sub.folder)) for p in sub.notebooks.values())
        store.record(result)
        store.save()
        results.append(result)
        if progress:
            pts = "" if result.score is None else f"{result.score:g}/{result.max_score:g}"
            progress(f"[{i}/{len(subs)}] {sub.student_id:<{width}} {result.status:<16} {pts:>9}  "
                     f"({time.perf_counter() - t0:.1f} s)")
    return results


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
        graded = {r.student_id for r in store.results(lab) if r.status == GRADED}
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
            elif rec.status != GRADED:
                continue
            else:
                note = rec.note
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
