"""Every lab's speed tests pass for the reference on a busy machine.

Each lab's speed tests, with the answer cells they time (:mod:`tests.speed_cells`),
run 3 times in ``make test`` and 20 times in ``make test-full``, two notebooks at once, beside three CPU burners and a
launch-and-compile loop on this machine's cores: the load of a class graded with
``--jobs 2``. A right answer must keep its points every time. ``python -m tests.speed_cells --runs 20`` prints a table of passes per speed test.
"""

from __future__ import annotations

import nbformat
import pytest

from tests.speed_cells import failed_cells, write_speed_notebooks
from tests.stress_kernels import run_under_load


@pytest.mark.slow
def test_reference_speed_tests_pass_under_load(tmp_path, repeats):
    labs = write_speed_notebooks(tmp_path)
    assert {"lab01_benchmarking", "lab03_pytorch_performance", "lab07_transformers"} <= set(labs)
    jobs = [lab for _ in range(repeats(3, 20)) for lab in labs]
    runs = list(zip(jobs, run_under_load([tmp_path / f"{lab}.ipynb" for lab in jobs], 300, parallel=2, burners=3)))
    lost = []
    for lab, run in runs:
        assert "crash" not in run, f"{lab}: {run['crash']}"
        lost += [f"{lab}: {cell}" for cell in failed_cells(run, nbformat.read(tmp_path / f"{lab}.ipynb", as_version=4))]
    assert not lost, f"the reference lost points under load (run, cell): {lost}"
