"""The mutation suite itself (``solutions/<lab>/mutants.toml``): every mutant still applies to the reference,
edits an answer cell, names real test cells, and every lab has at least ten. Fast: nothing is graded here
(``make mutants`` grades them all; ``make test`` grades each lab's CI mutants, tests/graded_labs.py)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from autograder.lab_settings import all_labs
from autograder.sample_class.build import strip_solution_markers
from tests import mutants

ROOT = Path(__file__).resolve().parents[2]
LABS = [pytest.param(lab, marks=getattr(pytest.mark, lab.short), id=lab.name) for lab in all_labs()]


def reference(lab) -> nbformat.NotebookNode:
    """The source notebook with the solution markers removed (what a perfect student submits)."""
    [path] = lab.notebooks
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("solution") and cell.cell_type == "code":
            cell.source = strip_solution_markers(cell.source)
    return nb


def test_every_lab_has_mutants():
    assert mutants.labs_with_mutants() == [lab.name for lab in all_labs()]


@pytest.mark.parametrize("lab", LABS)
def test_mutants_apply_to_the_reference(lab):
    assert len(lab.mutants) >= 10, f"{lab.name}: {len(lab.mutants)} mutants; the suite asks for at least 10 per lab"
    nb = reference(lab)
    for m in lab.mutants:  # names, test cells and answer cells are checked when the lab reads mutants.toml
        changed = mutants.apply(nb, m)  # raises when an edit no longer matches the reference exactly once
        assert [c.source for c in changed.cells] != [c.source for c in nb.cells], (
            f"{lab.name}: {m.name} changes nothing"
        )


@pytest.mark.parametrize("lab", LABS)
def test_lab_settings_agree_with_the_notebook(lab):
    assert lab.problems() == []
    assert lab.ci_mutants, f"{lab.name}: lab.toml names no CI mutant ([tests] ci_mutants)"
