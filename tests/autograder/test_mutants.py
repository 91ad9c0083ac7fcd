"""The mutation suite itself (tests/mutants): every mutant still applies to the reference, names real test
cells, and every lab has at least ten. Fast: nothing is graded here (``make mutants`` grades them all,
``tests/autograder/test_grading_labs.py`` grades ``CI_SUBSET``)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from autograder import labs
from autograder.sample_class.build import strip_solution_markers
from tests import mutants

ROOT = Path(__file__).resolve().parents[2]
LABS = sorted(p.name for p in (ROOT / "solutions").iterdir() if p.is_dir())


def reference(lab: str) -> nbformat.NotebookNode:
    """The source notebook with the solution markers removed (what a perfect student submits)."""
    nb = nbformat.read(ROOT / "solutions" / lab / f"{lab}.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("solution") and cell.cell_type == "code":
            cell.source = strip_solution_markers(cell.source)
    return nb


def test_every_lab_has_a_mutant_module():
    assert sorted(mutants.lab_modules()) == LABS


@pytest.mark.parametrize("lab", LABS)
def test_mutants_apply_to_the_reference(lab):
    found = mutants.load(lab)
    assert len(found) >= 10, f"{lab}: {len(found)} mutants; the suite asks for at least 10 per lab"
    nb = reference(lab)
    answer_ids = {
        c.metadata["nbgrader"]["grade_id"]
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("solution") and c.cell_type == "code"
    }
    test_ids = {c.grade_id for c in labs.grade_cells(ROOT / "solutions" / lab / f"{lab}.ipynb") if c.autograded}
    for m in found:
        assert m.fails, f"{lab}: mutant {m.name} names no test cell that must fail"
        assert m.fails <= test_ids, f"{lab}: mutant {m.name} names unknown test cells {sorted(m.fails - test_ids)}"
        assert {cell for cell, _, _ in m.edits} <= answer_ids, (
            f"{lab}: mutant {m.name} edits a cell that is not an answer"
        )
        changed = mutants.apply(nb, m)  # raises when an edit no longer matches the reference exactly once
        assert [c.source for c in changed.cells] != [c.source for c in nb.cells], (
            f"{lab}: mutant {m.name} changes nothing"
        )


def test_ci_subset_names_existing_mutants():
    for lab, names in mutants.CI_SUBSET.items():
        assert set(names) <= {m.name for m in mutants.load(lab)}, f"{lab}: CI_SUBSET names unknown mutants"
