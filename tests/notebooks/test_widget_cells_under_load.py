"""Widget cells run headless without waiting out the cell timeout, many times on a busy machine.

The notebook holds the widget patterns of the labs and weeks: the roofline
explorer (an ``Output`` widget redrawn by ``observe`` callbacks),
``interact`` with a plot, ``interact_manual``, and an ``Output`` written by
``print`` and ``plt.show``. It runs through nbclient with the grading's kernel
client (:mod:`autograder.isolation.reply_channel`), two at a time: 3 times beside
one CPU burner and the suite's other worker (``make test``), or 20 times beside
three burners and a launch-and-compile loop (``make test-full``). With nbclient's
own client, 5 to 9 runs in 12 waited out their whole cell timeout under the full
load (``python -m tests.stress_kernels NOTEBOOK --plain-client`` shows it).
"""

from __future__ import annotations

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from tests.stress_kernels import run_under_load

AT_ONCE, CELL_TIMEOUT_S = 2, 60

CELLS = [
    "import hpml_lab_utils as hl\n"
    "import ipywidgets as widgets\n"
    "import matplotlib.pyplot as plt\n"
    "import numpy as np\n"
    "from hpml_lab_utils import roofline, roofline_plot\n"
    "peaks = roofline.Peaks(device='cpu', flops={'float32': 1e11, 'float64': 5e10}, bandwidth=2e10,\n"
    "                       sources={}, machine='test', measured_at='now')\n"
    "points = [roofline.KernelPoint('dot', 2e6, 8e6, 1e-3)]",
    "roofline_plot.explore(peaks, points)",
    "def plot_power(p=2.0):\n"
    "    x = np.linspace(0, 1, 50)\n"
    "    plt.plot(x, x ** p)\n"
    "    plt.show()\n"
    "    print(f'p = {p}')\n"
    "\n"
    "widgets.interact(plot_power, p=(1.0, 4.0, 0.5));",
    "widgets.interact_manual(lambda n=3: print('n squared is', n * n), n=(1, 9));",
    "out = widgets.Output()\n"
    "with out:\n"
    "    print('inside an Output widget')\n"
    "    plt.plot([0, 1], [1, 0])\n"
    "    plt.show()\n"
    "out",
    "print('after the widgets')",
]


@pytest.mark.slow
def test_widget_cells_never_wait_out_the_timeout(tmp_path, repeats):
    runs, burners, churn = repeats((3, 1, False), (20, 3, True))
    path = tmp_path / "widget_cells.ipynb"
    nb = new_notebook(cells=[new_code_cell(c) for c in CELLS])
    nb.metadata["kernelspec"] = {"name": "hpml", "display_name": "Python 3 (HPML)", "language": "python"}
    nbformat.write(nb, path)
    results = run_under_load([path] * runs, CELL_TIMEOUT_S, parallel=AT_ONCE, burners=burners, churn=churn)
    crashed = [r["crash"] for r in results if "crash" in r]
    assert not crashed, f"runs that did not finish: {crashed[:3]}"
    hung = [(i, cell) for i, r in enumerate(results) for cell in r["hung"]]
    assert not hung, f"(run, cell) pairs that waited out the {CELL_TIMEOUT_S} s cell timeout: {hung}"
    errors = [(i, cell) for i, r in enumerate(results) for cell in r["errors"]]
    assert not errors, f"(run, cell) pairs in error: {errors}"
    assert all(len(r["seconds"]) == len(CELLS) for r in results), "some cells did not run"
    slowest = max(s for r in results for i, s in r["seconds"].items() if i > 0)  # cell 0 imports torch
    print(f"\n{runs} runs under load: slowest widget cell {slowest:.1f} s")
