"""Each lab graded ONCE per test run, through the instructor's own command; every test that needs it reads that.

For a lab, :func:`grade_lab` builds a class from the current source and a fresh
release: ``perfect`` (the reference solution), ``untouched`` (the release as
is), ``not_json`` (``perfect``'s file cut in half), the lab's CI mutants
(``[tests] ci_mutants`` in its ``lab.toml``: one student holding all of them when
they fail different test cells, :func:`ci_students`; else one student each),
and for lab01, the sample class's ``one_wrong``. It zips the class and grades it
with ``python -m autograder autograde LAB class.zip --jobs N`` (N = the usable
cores), in a grading folder of its own. The session fixture ``graded_lab``
(``tests/conftest.py``) grades each lab the first time a test asks for it.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from autograder import cli, sample_class
from autograder.lab_settings import Lab, Mutant
from autograder.paths import CoursePaths
from autograder.pipeline import generate
from autograder.records import GradeResult, StatusStore
from autograder.sample_class.build import solved_notebook
from tests import mutants

PERFECT, UNTOUCHED, NOT_JSON, ONE_WRONG = "perfect", "untouched", "not_json", "one_wrong"


@dataclass(frozen=True)
class GradedLab:
    """One lab's class, graded once: what the tests read."""

    lab: Lab
    paths: CoursePaths  # the grading folder's layout
    release: Path  # the fresh release notebook the students started from
    results: dict[str, GradeResult]  # student id -> result
    points: dict[str, float]  # autograded test cell -> points, from the source's metadata
    exit_code: int  # of `autograde`
    seconds: float  # the batch, wall clock

    @property
    def mutants(self) -> tuple[Mutant, ...]:
        return ci_students(self.lab)

    def executed(self, student: str) -> nbformat.NotebookNode:
        """The notebook as the grader ran it (outputs included)."""
        name = self.release.name
        return nbformat.read(self.paths.autograded / student / self.lab.name / name, as_version=4)

    def env(self) -> dict[str, str]:
        """The variables that point the autograder at this grading folder (for `feedback`, `export`...)."""
        return {"HPML_GRADING_DIR": str(self.paths.work)}


COMBINED = "ci_mutants"


def ci_students(lab: Lab) -> tuple[Mutant, ...]:
    """The lab's CI mutants as students: one student with every mistake when no two of them fail the same test
    cell (each must then lose exactly its own cells, so together they lose exactly the union), else one each.

    A whole run of a lab costs minutes on 2 cores (lab11 compiles C++ in each); ``make mutants`` grades every
    mutant alone."""
    mutants = lab.ci_mutants
    fails = [m.fails for m in mutants]
    if len(mutants) < 2 or sum(len(f) for f in fails) != len(frozenset().union(*fails)):
        return mutants
    edits = tuple(e for m in mutants for e in m.edits)
    why = "; ".join(f"{m.name}: {m.why}" for m in mutants)
    return (Mutant(COMBINED, why, edits, frozenset().union(*fails)),)


def class_notebooks(lab: Lab, source: Path, release: Path) -> dict[str, nbformat.NotebookNode | str]:
    """student id -> notebook (or raw text, for ``not_json``) of the lab's graded-once class."""
    perfect = solved_notebook(source, release)
    students: dict[str, nbformat.NotebookNode | str] = {
        PERFECT: perfect,
        UNTOUCHED: nbformat.read(release, as_version=4),
    }
    if lab.name == sample_class.LAB:
        students[ONE_WRONG] = sample_class.one_wrong_notebook(perfect)
    students |= {m.name: mutants.apply(perfect, m) for m in ci_students(lab)}
    text = nbformat.writes(perfect)
    students[NOT_JSON] = text[: len(text) // 2]  # a truncated upload
    return students


def grade_lab(name: str, work: Path, jobs: int) -> GradedLab:
    """Build the lab's class in ``work`` (a fresh folder) and grade it with the CLI, ``jobs`` students at a time."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HPML_GRADING_DIR", str(work))
        mp.delenv("HPML_COURSE_ROOT", raising=False)
        paths = CoursePaths.from_env()
        lab = Lab.load(name, paths)
        [source] = lab.notebooks
        release = generate.register_lab(name, paths)[0]
        folder = work / "class"
        for student, nb in class_notebooks(lab, source, release).items():
            (folder / student).mkdir(parents=True)
            target = folder / student / release.name
            if isinstance(nb, str):
                target.write_text(nb, encoding="utf-8")
            else:
                nbformat.write(nb, target)
        archive = shutil.make_archive(str(work / "class"), "zip", root_dir=work, base_dir="class")
        shutil.rmtree(folder)
        t0 = time.perf_counter()
        code = cli.main(["autograde", name, archive, "--jobs", str(jobs)])
        seconds = time.perf_counter() - t0
        results = {r.student_id: r for r in StatusStore(paths.statuses).results(name)}
    points = {c.grade_id: c.points for c in lab.grade_cells() if c.autograded}
    return GradedLab(lab, paths, release, results, points, code, seconds)


def error_cells(nb: nbformat.NotebookNode) -> list[str]:
    """Grade ids (or ``cell N``) of the cells of an executed notebook that raised."""
    return [
        c.metadata.get("nbgrader", {}).get("grade_id") or f"cell {i}"
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code" and any(o.get("output_type") == "error" for o in c.get("outputs", []))
    ]
