"""The mutation suite: plausible wrong answers, graded through the real autograder.

Each lab has a module ``labNN.py`` with a list ``MUTANTS`` of :class:`Mutant`:
a mistake a student makes at 11 pm (right shapes, wrong behaviour), written as
text edits of the reference solution's answer cells, and the test cells that
must lose their points because of it. :func:`grade_mutants` builds a class of
the reference plus one student per mutant and grades it with
``autograde.autograde_class``, the instructor's own command. A mutant is
*killed* when it fails exactly the test cells it names; the reference must keep
every autograded point.

Run all of them with ``make mutants`` (``LAB=lab04`` for one lab); ``make
test`` grades a fixed subset (``CI_SUBSET``) through ``tests/autograder/test_grading_labs.py``.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

import nbformat

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = "reference"
UNTOUCHED = "untouched"


@dataclass(frozen=True)
class Mutant:
    """One plausible wrong answer.

    ``edits``: (answer cell grade_id, text in the reference, the student's text).
    ``fails``: the test cells (grade_ids) that must lose their points, and no others.
    """

    name: str
    why: str
    edits: tuple[tuple[str, str, str], ...]
    fails: frozenset[str] = field(default_factory=frozenset)


def mutant(name: str, why: str, cell: str, right: str, wrong: str, fails: str | tuple[str, ...]) -> Mutant:
    """A mutant made of one edit of one answer cell (the common case)."""
    fails = (fails,) if isinstance(fails, str) else fails
    return Mutant(name, why, ((cell, right, wrong),), frozenset(fails))


def lab_modules() -> dict[str, str]:
    """lab name -> the module of its mutants, for every lab in solutions/ that has one."""
    found = {}
    for lab_dir in sorted((ROOT / "solutions").iterdir()):
        short = lab_dir.name.split("_")[0]
        if (Path(__file__).parent / f"{short}.py").exists():
            found[lab_dir.name] = f"{__name__}.{short}"
    return found


def load(lab: str) -> list[Mutant]:
    """The mutants of ``lab`` (full name, e.g. ``lab04_cuda_numba``)."""
    module = importlib.import_module(lab_modules()[lab])
    names = [m.name for m in module.MUTANTS]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise ValueError(f"{lab}: mutant names used twice: {duplicated}")
    return list(module.MUTANTS)


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
    """What grading one mutant gave."""

    mutant: Mutant
    status: str
    failed: frozenset[str]

    @property
    def killed(self) -> bool:
        return bool(self.failed)

    @property
    def exact(self) -> bool:
        return self.failed == self.mutant.fails


def grade_class(
    lab: str, mutants: list[Mutant], work: Path, jobs: int | None = None, progress=None, untouched: bool = False
) -> dict[str, object]:
    """Grade the reference (student ``REFERENCE``), each mutant (student = its name) and, if ``untouched``,
    the release as it is (student ``UNTOUCHED``) in ``work``, a fresh folder; return student -> GradeResult."""
    from autograder import autograde, generate
    from autograder.paths import CoursePaths
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
    outcomes = [Outcome(m, results[m.name].status, frozenset(results[m.name].failed_tests)) for m in mutants]
    return results[REFERENCE], outcomes


# Graded by `make test` (tests/autograder/test_grading_labs.py): one or two mutants per lab, chosen to cover
# different kinds of mistake (numerics, structure, protocol), within CI's time budget.
CI_SUBSET = {
    "lab01_benchmarking": ["dot_loop_numpy_shortcut"],
    "lab02_profiling": ["adam_no_bias_correction"],
    "lab03_pytorch_performance": ["pairwise_numpy_squared"],
    "lab04_cuda_numba": ["tiled_no_bound_check_on_write"],
    "lab05_distributed": ["ring_overwrites_instead_of_adding"],
    "lab06_compression": ["distill_no_t_squared"],
    "lab07_transformers": ["lora_scale_alpha"],
    "lab08_nas": ["macs_depthwise_dense"],
    "lab09_llm_serving": ["cache_decode_no_cow_copy", "sched_preempts_oldest"],
    "lab10_parallel_training": ["ddp_blocking_allreduce", "tp_no_backward_allreduce", "pipe_deadlock"],
    "lab11_custom_kernels": ["softmax_no_max", "attn_no_rescale", "gelu_ignores_strides"],
}
