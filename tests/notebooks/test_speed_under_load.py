"""Every lab's speed tests pass for the reference on a busy machine.

Each lab's speed tests, with the answer cells they time (:mod:`tests.speed_cells`), run beside three CPU
burners and a launch-and-compile loop on this machine's cores, two notebooks at once: the load of a class
graded with ``--jobs 2``. A right answer must keep its points every time. ``make test`` runs one kernel per
lab that measures each speed test 3 times in a row; ``make test-full`` runs 20 kernels per lab, so a test
that fails only on a cold kernel shows too. ``python -m tests.speed_cells --runs 20`` prints a table of
passes per speed test.
"""

from __future__ import annotations

import nbformat
import pytest

from tests.speed_cells import failed_cells, write_speed_notebooks
from tests.stress_kernels import run_under_load


@pytest.mark.slow
def test_reference_speed_tests_pass_under_load(tmp_path, repeats):
    kernels, copies = repeats((1, 3), (20, 1))
    labs = write_speed_notebooks(tmp_path, copies)
    assert {"lab01_benchmarking", "lab03_pytorch_performance", "lab07_transformers"} <= set(labs)
    jobs = [lab for _ in range(kernels) for lab in labs]
    runs = list(zip(jobs, run_under_load([tmp_path / f"{lab}.ipynb" for lab in jobs], 300, parallel=2, burners=3)))
    lost = []
    for lab, run in runs:
        assert "crash" not in run, f"{lab}: {run['crash']}"
        lost += [f"{lab}: {cell}" for cell in failed_cells(run, nbformat.read(tmp_path / f"{lab}.ipynb", as_version=4))]
    assert not lost, f"the reference lost points under load (lab, speed test): {lost}"
