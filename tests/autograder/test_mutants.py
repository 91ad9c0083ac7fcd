"""The mutation suite itself (``solutions/<lab>/mutants.toml``): every mutant still applies to the reference,
edits an answer cell, names real test cells, and every lab has at least ten; a must-pass variant (``fails = []``)
passes only when it keeps every point. Fast: nothing is graded here
(``make mutants`` grades them all; ``make test`` grades each lab's CI mutants, tests/graded_labs.py)."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import nbformat
import pytest

from autograder.lab_settings import Mutant, all_labs
from autograder.records import GRADED, GRADER_ERROR, TIMED_OUT, GradeResult
from autograder.sample_class.build import strip_solution_markers
from tests import mutants
from tests.mutants import __main__ as cli

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


# must-pass variants (fails = []): right answers written another way, judged on GradeResults made up here

VARIANT = Mutant("ok_other_way", "a right answer written another way", (("answer_add", "a + b", "b + a"),))
WRONG = Mutant("always_one", "returns 1", (("answer_add", "a + b", "1"),), frozenset({"test_add"}))


def result(student: str, status: str = GRADED, score: float | None = 10.0, failed=()) -> GradeResult:
    return GradeResult(student, status, score=score, max_score=12.0, failed_tests=list(failed))


REFERENCE = result(mutants.REFERENCE)


@pytest.mark.parametrize(
    "got, passes",
    [
        (result("v"), True),  # graded to the end, no test cell below its points
        (result("v", score=8.0, failed=["test_add"]), False),  # a test cell lost its points
        (result("v", score=9.5, failed=["test_add"]), False),  # partial credit: the cell is listed too
        (result("v", status=TIMED_OUT, score=0.0), False),  # nothing failed, but the notebook never finished
        (result("v", status=GRADER_ERROR, score=None), False),  # not graded at all
    ],
)
def test_a_must_pass_variant_passes_only_when_it_keeps_every_point(got, passes):
    o = mutants.outcome(VARIANT, got)
    assert o.must_pass and o.exact is passes


def test_a_mutant_still_passes_when_it_loses_exactly_its_cells():
    assert mutants.outcome(WRONG, result("w", score=8.0, failed=["test_add"])).exact
    assert not mutants.outcome(WRONG, result("w")).exact  # survived


@pytest.mark.parametrize("lost", [False, True])
def test_the_cli_reports_a_must_pass_variant_that_lost_points(lost, capsys):
    got = result("v", score=8.0, failed=["test_add"]) if lost else result("v")
    with (
        mock.patch("tests.mutants.__main__.labs_with_mutants", return_value=["lab01_toy"]),
        mock.patch("tests.mutants.__main__.load", return_value=[VARIANT]),
        mock.patch("tests.mutants.__main__.grade_mutants", return_value=(REFERENCE, [mutants.outcome(VARIANT, got)])),
    ):
        code = cli.main(["lab01"])
    out = capsys.readouterr().out
    assert code == int(lost)
    assert ("ok_other_way" in out and "MUST PASS, LOST POINTS" in out and "['test_add']" in out) is lost
    # the lab's line comes as soon as the lab is graded, before the table (a stopped run keeps it)
    lab_line = out.index(f"-- lab01_toy: 1 mutants, {int(lost)} killed, {int(not lost)} exact")
    assert lab_line < out.index("\nlab ")
    assert ("MUST PASS" in out[lab_line : out.index("\nlab ")]) is lost
