"""The mutation suite: plausible wrong answers, graded through the real autograder.

Each lab folder has a ``mutants.toml`` of :class:`~autograder.lab_settings.Mutant`:
a mistake a student makes at 11 pm (right shapes, wrong behaviour), written as
text edits of the reference solution's answer cells, and the test cells that
must lose their points because of it. :func:`grade_mutants` builds a class of
the reference plus one student per mutant and grades it with
``autograde.autograde_class``, the instructor's own command. A mutant is
*killed* when it fails exactly the test cells it names; the reference must keep
every autograded point. A mutant with ``fails = []`` is a *must-pass variant*,
a right answer written another way: it passes only when it is graded and keeps
every point the reference gets.

Run all of them with ``make mutants`` (``LAB=lab04`` for one lab); ``make
test`` grades each lab's ``[tests] ci_mutants`` (``lab.toml``) in its one grading
of the lab (``tests/autograder/graded_labs.py``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import nbformat

from autograder.lab_settings import MUTANTS_FILE, Lab, Mutant, all_labs

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = "reference"
UNTOUCHED = "untouched"


def labs_with_mutants() -> list[str]:
    """Every lab of solutions/ that has a ``mutants.toml``."""
    return [lab.name for lab in all_labs() if (lab.folder / MUTANTS_FILE).exists()]


def load(lab: str) -> list[Mutant]:
    """The mutants of ``lab`` (full name, e.g. ``lab04_cuda_numba``), from its ``mutants.toml``."""
    return list(Lab.load(lab).mutants)


def apply(solved: nbformat.NotebookNode, m: Mutant) -> nbformat.NotebookNode:
    """A copy of the solved notebook with the mutant's edits (each must match the reference exactly once)."""
    nb = nbformat.from_dict(solved)
    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in nb.cells}
    for cell_id, right, wrong in m.edits:
        if cell_id not in cells:
            raise LookupError(f"mutant {m.name}: no cell {cell_id!r} in the notebook")
        cell = cells[cell_id]
        count = cell.source.count(right)
        if count != 1:
            raise LookupError(
                f"mutant {m.name}: {right!r} occurs {count} times in {cell_id} (need exactly 1); "
                "the reference changed: update the mutant"
            )
        cell.source = cell.source.replace(right, wrong)
    return nb


@dataclass
class Outcome:
    """What grading one mutant gave; ``full_marks``: graded to the end and no test cell below its points."""

    mutant: Mutant
    status: str
    failed: frozenset[str]
    full_marks: bool = False

    @property
    def killed(self) -> bool:
        return bool(self.failed)

    @property
    def must_pass(self) -> bool:
        """A right answer written another way (``fails = []``)."""
        return not self.mutant.fails

    @property
    def exact(self) -> bool:
        """A mutant lost exactly the cells it names; a must-pass variant kept every point."""
        return self.full_marks if self.must_pass else self.failed == self.mutant.fails


def grade_class(
    lab: str, mutants: list[Mutant], work: Path, jobs: int | None = None, progress=None, untouched: bool = False
) -> dict[str, object]:
    """Grade the reference (student ``REFERENCE``), each mutant (student = its name) and, if ``untouched``,
    the release as it is (student ``UNTOUCHED``) in ``work``, a fresh folder; return student -> GradeResult."""
    from autograder.grading import autograde
    from autograder.paths import CoursePaths
    from autograder.pipeline import generate
    from autograder.records import StatusStore
    from autograder.sample_class.build import solved_notebook

    with mock.patch.dict(os.environ, {"HPML_GRADING_DIR": str(work)}):
        os.environ.pop("HPML_COURSE_ROOT", None)
        paths = CoursePaths.from_env()
        release = generate.register_lab(lab, paths)[0]
        solved = solved_notebook(ROOT / "solutions" / lab / f"{lab}.ipynb", release)
        students = {REFERENCE: solved} | {m.name: apply(solved, m) for m in mutants}
        if untouched:
            students[UNTOUCHED] = nbformat.read(release, as_version=4)
        for student, nb in students.items():
            (work / "class" / student).mkdir(parents=True)
            nbformat.write(nb, work / "class" / student / f"{lab}.ipynb")
        autograde.autograde_class(lab, work / "class", paths, progress=progress, jobs=jobs)
        return {r.student_id: r for r in StatusStore(paths.statuses).results(lab)}


def grade_mutants(
    lab: str, mutants: list[Mutant], work: Path, jobs: int | None = None, progress=None
) -> tuple[object, list[Outcome]]:
    """Grade the reference and each mutant of ``lab`` in ``work`` (a fresh folder); return (reference, outcomes)."""
    results = grade_class(lab, mutants, work, jobs=jobs, progress=progress)
    return results[REFERENCE], [outcome(m, results[m.name]) for m in mutants]


def outcome(m: Mutant, result) -> Outcome:
    """What the GradeResult ``result`` of mutant ``m`` says. ``failed_tests`` lists every test cell scored below
    its points (partial credit too), so a submission graded to the end without one kept every autograded point."""
    from autograder.records import GRADED

    full = result.status == GRADED and not result.failed_tests
    return Outcome(m, result.status, frozenset(result.failed_tests), full_marks=full)
