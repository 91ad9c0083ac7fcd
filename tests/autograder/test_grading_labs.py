"""Every lab, end to end through the real autograder, graded once (``tests/graded_labs.py``).

For each lab: the reference solution gets every autograded point and none of
its cells raises (the whole notebook runs: deliverables, plots, written-answer
scaffolding), the untouched release gets zero, a truncated file is an invalid
notebook, and each CI mutant (``[tests] ci_mutants`` in the lab's ``lab.toml``)
loses exactly the points of the test cells it names. Points are read from the
source's metadata. The whole mutation suite runs with ``make mutants``.
"""

from __future__ import annotations

import psutil
import pytest

from autograder.isolation.sandbox import SCRATCH_ENV
from autograder.lab_settings import all_labs
from tests.graded_labs import NOT_JSON, PERFECT, UNTOUCHED, error_cells

pytestmark = pytest.mark.slow

LABS = [pytest.param(lab.name, marks=getattr(pytest.mark, lab.short), id=lab.name) for lab in all_labs()]


@pytest.mark.parametrize("lab", LABS)
def test_reference_solution_gets_every_autograded_point(graded_lab, lab):
    graded = graded_lab(lab)
    r = graded.results[PERFECT]
    assert r.status == "graded", r.message
    assert r.failed_tests == [], f"{lab}: the reference solution failed {r.failed_tests}"
    assert r.score == sum(graded.points.values())  # from the gradebook: written answers await manual grading
    assert error_cells(graded.executed(PERFECT)) == [], f"{lab}: cells of the reference raised"


@pytest.mark.parametrize("lab", LABS)
def test_untouched_release_gets_zero(graded_lab, lab):
    graded = graded_lab(lab)
    r = graded.results[UNTOUCHED]
    assert r.status == "graded", r.message
    assert sorted(r.failed_tests) == sorted(graded.points), "every autograded cell must fail on the release"
    assert r.score == 0


@pytest.mark.parametrize("lab", LABS)
def test_mutants_lose_exactly_their_cells(graded_lab, lab):
    graded = graded_lab(lab)
    assert graded.mutants, f"{lab}: lab.toml names no CI mutant ([tests] ci_mutants)"
    total = sum(graded.points.values())
    for m in graded.mutants:
        r = graded.results[m.name]
        assert r.status == "graded", r.message
        assert sorted(r.failed_tests) == sorted(m.fails), f"{m.name} ({m.why})"
        assert r.score == total - sum(graded.points[t] for t in m.fails)


@pytest.mark.parametrize("lab", LABS)
def test_a_truncated_file_is_an_invalid_notebook_and_the_rest_still_grade(graded_lab, lab):
    graded = graded_lab(lab)
    assert graded.exit_code == 0
    assert graded.results[NOT_JSON].status == "invalid notebook"
    assert "invalid JSON" in graded.results[NOT_JSON].message
    print(f"\n{lab}: {len(graded.results)} students graded in {graded.seconds:.0f} s")


@pytest.mark.parametrize("lab", LABS)
def test_no_process_a_grading_kernel_started_outlives_the_batch(graded_lab, lab):
    """Whatever a kernel started (lab13's Ray cluster: its head, raylet, GCS, agents and workers) is gone.

    Every such process inherits the kernel's scratch folder in ``HPML_SANDBOX_SCRATCH``, which lies in this
    lab's grading folder, so the check holds while other labs are graded beside it.
    """
    work = str(graded_lab(lab).paths.work)
    left = []
    for proc in psutil.process_iter(["pid", "name"]):
        try:
            scratch = proc.environ().get(SCRATCH_ENV, "")
        except (psutil.Error, OSError):
            continue  # gone, or not ours to read
        if scratch.startswith(work):
            left.append(proc.info)
    assert left == [], f"{lab}: processes of its grading kernels are still running: {left}"
