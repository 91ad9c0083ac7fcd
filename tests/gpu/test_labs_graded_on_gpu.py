"""lab04 and lab11 graded through the autograder on the GPU: the reference keeps every point, its speed tests
included, the untouched release scores zero, the CI mutants lose exactly their cells; each kernel saw its GPU as
device 0 under a resident-memory limit (`make test-gpu`)."""

from __future__ import annotations

import hpml_lab_utils as hl

import pytest

from autograder.lab_settings import Lab
from autograder.paths import CoursePaths
from autograder.records import GRADED
from tests import graded_labs

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.slow,
    pytest.mark.skipif(not hl.has_cuda(), reason="needs a CUDA GPU (make test-gpu on a GPU machine)"),
]


@pytest.mark.parametrize("lab", ["lab04_cuda_numba", "lab11_custom_kernels"])
def test_gpu_lab_graded_on_the_gpu(lab, tmp_path):
    missing = Lab.load(lab, CoursePaths.from_env()).needs.missing()
    if missing:
        pytest.skip("; ".join(missing))
    graded = graded_labs.grade_lab(lab, tmp_path, jobs=2)
    perfect, untouched = graded.results[graded_labs.PERFECT], graded.results[graded_labs.UNTOUCHED]
    full = sum(graded.points.values())
    print(
        f"\n[gpu] {lab}: reference {perfect.score}/{full} ({perfect.status}), untouched {untouched.score}, "
        f"batch {graded.seconds:.0f} s"
    )
    assert (perfect.status, perfect.score) == (GRADED, full), perfect.message
    assert untouched.score == 0
    for mutant in graded.mutants:
        lost = set(graded.results[mutant.name].failed_tests)
        assert lost == set(mutant.fails), (mutant.name, graded.results[mutant.name].message)
    log = (graded.paths.logs / lab / f"{graded_labs.PERFECT}.log").read_text()
    assert "[grader] graded on GPU" in log and "(the kernel's CUDA device 0)" in log
    assert "[grader] memory limit on resident memory" in log, log[:2000]
