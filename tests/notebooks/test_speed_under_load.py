"""Every lab's speed tests pass for the reference on a busy machine.

Each lab's speed tests, with the answer cells they time (:mod:`tests.speed_cells`), run beside CPU
burners and a launch-and-compile loop on this machine's cores, two notebooks at once: the load of a class
graded with ``--jobs 2``. A right answer must keep its points every time. ``make test`` runs one kernel per
lab that measures each speed test 3 times in a row, two labs at once, beside the suite's other worker, which
starts by grading lab10 with ``--jobs 2`` (kernels and ranks starting, importing and finishing: real grading
load, in place of the burners and the launch-and-compile loop; the suite keeps both cores busy from start to
end); ``make test-full`` runs 20 kernels per lab beside three burners and the loop, so a test that fails only
on a cold kernel shows too. ``python -m tests.speed_cells --runs 20`` prints a table of
passes per speed test.
"""

from __future__ import annotations

import nbformat
import pytest

from tests.speed_cells import failed_cells, write_speed_notebooks
from tests.stress_kernels import run_under_load


@pytest.mark.slow
def test_reference_speed_tests_pass_under_load(tmp_path, repeats):
    kernels, copies, burners, churn = repeats((1, 3, 0, False), (20, 1, 3, True))
    labs = write_speed_notebooks(tmp_path, copies)
    assert {"lab01_benchmarking", "lab03_pytorch_performance", "lab07_transformers"} <= set(labs)
    jobs = [lab for _ in range(kernels) for lab in labs]
    notebooks = [tmp_path / f"{lab}.ipynb" for lab in jobs]
    runs = list(zip(jobs, run_under_load(notebooks, 300, parallel=2, burners=burners, churn=churn)))
    lost = []
    for lab, run in runs:
        assert "crash" not in run, f"{lab}: {run['crash']}"
        lost += [f"{lab}: {cell}" for cell in failed_cells(run, nbformat.read(tmp_path / f"{lab}.ipynb", as_version=4))]
    assert not lost, f"the reference lost points under load (lab, speed test): {lost}"
