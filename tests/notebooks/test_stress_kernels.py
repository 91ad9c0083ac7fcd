"""tests.stress_kernels: a stopped run drops the queued notebooks (it does not run them to the end); the table's
slowest cell; a run leaves the notebook's folder as it found it."""

import contextlib
import time
from pathlib import Path

import pytest

from tests import stress_kernels


def test_a_stopped_run_drops_the_notebooks_still_queued(monkeypatch, tmp_path):
    started = []

    def fake_run(path, timeout_s, plain_client):
        started.append(path)
        if len(started) == 1:
            raise KeyboardInterrupt  # what SIGTERM's handler or Ctrl-C raises in the waiting thread
        time.sleep(0.2)
        return {"seconds": {}, "hung": [], "errors": []}

    monkeypatch.setattr(stress_kernels, "run_in_child", fake_run)
    monkeypatch.setattr(stress_kernels, "busy_machine", lambda **kwargs: contextlib.nullcontext([]))
    jobs = [tmp_path / f"nb{i}.ipynb" for i in range(10)]
    with pytest.raises(KeyboardInterrupt):
        stress_kernels.run_under_load(jobs, 5, parallel=1, burners=0, churn=False)
    assert len(started) <= 2  # the failed one, and at most the one the worker took before the rest was dropped


def test_the_slowest_cell_is_the_largest_ratio_to_its_median_then_the_longest():
    one_run = [{"seconds": {0: 0.5, 1: 12.0, 2: 3.0}, "hung": [], "errors": []}]
    assert stress_kernels.summarise(Path("a.ipynb"), one_run)["slowest"] == (1.0, 12.0, 1)
    runs = [{"seconds": {0: 0.5, 1: 12.0, 2: 3.0}, "hung": [], "errors": []} for _ in range(2)]
    runs.append({"seconds": {0: 0.5, 1: 12.0, 2: 30.0}, "hung": [], "errors": []})
    row = stress_kernels.summarise(Path("a.ipynb"), runs)
    assert row["slowest"] == (10.0, 30.0, 2) and row["flagged"] == [(2, 30.0)]


def test_a_run_writes_in_a_copy_of_the_notebook_folder(tmp_path):
    import nbformat

    folder = tmp_path / "lab99_demo"
    folder.mkdir()
    (folder / "data.txt").write_text("beside the notebook\n")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("open('made.txt', 'w').write(open('data.txt').read())")]
    nbformat.write(nb, folder / "lab99_demo.ipynb")
    result = stress_kernels.run_once(folder / "lab99_demo.ipynb", timeout_s=60, plain_client=False)
    assert result["errors"] == [] and result["hung"] == []  # it found data.txt in the copy
    assert sorted(p.name for p in folder.iterdir()) == ["data.txt", "lab99_demo.ipynb"]
