"""Per-student grading results, the status file that keeps them, and the CSV export.

nbgrader's gradebook holds points only: a submission that could not be graded
is either missing from it or exports as 0.0, indistinguishable from a real
zero. So every grading ends in a :class:`GradeResult` with a *status*, kept in
``statuses.json`` next to the gradebook, and the export joins the two.

Statuses (plain strings, so old files still load):

- ``graded``: nbgrader ran the notebook; the score is what the tests gave.
- ``late``: graded, but nbgrader's ``timestamp.txt`` is after the lab's due date
  (the score is nbgrader's, late penalty included).
- ``timed out``: a cell ran over the per-cell limit (it was interrupted and the
  rest was graded: the score counts what passed), or the whole notebook ran over
  the per-notebook wall limit (its grading was killed: score 0). The message
  names the cells.
- ``kernel died``: the kernel exited in the middle of the notebook
  (``os._exit``, a crash, a signal); score 0.
- ``memory limit``: a ``MemoryError`` in the outputs (graded: what passed
  counts) or the kernel was killed for memory (score 0).
- ``invalid notebook``: not JSON, not a notebook, or no notebook found; scores 0.
- ``tampered``: the notebook changed test cells or their metadata, or replaced
  what tests rely on; affected tests score 0 and the instructor should review it.
- ``grader error``: nbgrader failed on it (see the message and the log); no score.
  It is the only status a later run re-grades without ``--force``.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import spreadsheet

GRADED = "graded"
INVALID_NOTEBOOK = "invalid notebook"
GRADER_ERROR = "grader error"
LATE = "late"
TIMED_OUT = "timed out"
KERNEL_DIED = "kernel died"
MEMORY_LIMIT = "memory limit"
TAMPERED = "tampered"
# cell metadata set by the grading worker on a cell it did not (fully) run: the kernel had died, was stuck,
# or the notebook was out of time; the tamper audit then expects no verdict from that cell
NOT_RUN_KEY = "hpml_not_run"
STATUSES = (GRADED, LATE, TIMED_OUT, KERNEL_DIED, MEMORY_LIMIT, INVALID_NOTEBOOK, TAMPERED, GRADER_ERROR)
#: statuses whose score is in the gradebook (the notebook ran to its end and nbgrader scored it)
SCORED_IN_GRADEBOOK = (GRADED, LATE, TIMED_OUT, MEMORY_LIMIT, TAMPERED)
#: statuses a later run does not redo unless forced (the submission and the lab are unchanged)
FINAL = tuple(s for s in STATUSES if s != GRADER_ERROR)

CSV_COLUMNS = ("student_id", "lab", "score", "max_score", "status", "message")


@dataclass
class GradeResult:
    """What grading one student's submission of one lab produced.

    ``score`` and ``max_score`` are totals over all graded cells of the lab as the
    gradebook has them (autograded tests plus manually graded answers, which
    score 0 until someone grades them; ``message`` says so). ``score`` is
    ``None`` when there is no score at all (``grader error``).
    """

    student_id: str
    status: str
    score: float | None = None
    max_score: float | None = None
    message: str = ""
    lab: str = ""
    notebook: str = ""  # the submitted file it came from, relative to the student's folder
    failed_tests: list[str] = field(default_factory=list)
    note: str = ""  # how the submission was found (e.g. a renamed notebook that was accepted)
    submission_hash: str = ""  # sha256 of the submitted file(s): a re-run skips an unchanged, final result
    lab_version: str = ""  # sha256 of the lab's source notebooks and limits it was graded against
    seconds: float | None = None  # wall time of its grading (worker start to merge)
    timed_out_cells: list[str] = field(default_factory=list)
    tampering: list[str] = field(default_factory=list)  # what the tamper checks reported
    detail: str = ""  # what the status is about (cells that timed out...), kept for re-exports
    in_gradebook: bool | None = None  # its points were merged into the gradebook (None: an older record)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> GradeResult:
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)


class StatusStore:
    """``statuses.json``: ``{"labs": {lab: {student_id: GradeResult as dict}}}``.

    One writer (the process that runs the batch) records results; every save
    is atomic (write a temporary file, then rename), so an interrupted run
    leaves the previous complete file.
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self.labs: dict[str, dict[str, GradeResult]] = {}
        if self.path.exists():
            data = json.loads(self.path.read_text(encoding="utf-8"))
            for lab, students in data.get("labs", {}).items():
                self.labs[lab] = {sid: GradeResult.from_dict(rec) for sid, rec in students.items()}

    def record(self, result: GradeResult) -> None:
        self.labs.setdefault(result.lab, {})[result.student_id] = result

    def get(self, lab: str, student_id: str) -> GradeResult | None:
        return self.labs.get(lab, {}).get(student_id)

    def results(self, lab: str | None = None) -> list[GradeResult]:
        labs = [lab] if lab is not None else sorted(self.labs)
        return [self.labs[l][s] for l in labs if l in self.labs for s in sorted(self.labs[l])]

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {
            "comment": "per-student grading statuses written by `python -m autograder`; points live in gradebook.db",
            "labs": {
                lab: {sid: self.labs[lab][sid].to_dict() for sid in sorted(self.labs[lab])} for lab in sorted(self.labs)
            },
        }
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".statuses.", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1, sort_keys=True)
            fh.write("\n")
        os.replace(tmp, self.path)


def _fmt(x: float | None) -> str:
    if x is None:
        return ""
    return f"{float(x):g}"


def write_csv(rows: Iterable[GradeResult], out) -> int:
    """Write results as CSV with :data:`CSV_COLUMNS` to a path or an open text file; return the row count."""
    rows = sorted(rows, key=lambda r: (r.lab, r.student_id))

    def _write(fh) -> None:
        writer = spreadsheet.writer(fh, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        for r in rows:
            writer.writerow([r.student_id, r.lab, _fmt(r.score), _fmt(r.max_score), r.status, r.message])

    if hasattr(out, "write"):
        _write(out)
    else:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        with open(out, "w", newline="", encoding="utf-8") as fh:
            _write(fh)
    return len(rows)


def scored_in_gradebook(result: GradeResult) -> bool:
    """Whether ``result``'s points live in the gradebook (older records, without ``in_gradebook``: by status)."""
    return result.in_gradebook if result.in_gradebook is not None else result.status in SCORED_IN_GRADEBOOK
