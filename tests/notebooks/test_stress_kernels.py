"""tests.stress_kernels' runner stops when it is stopped: queued notebooks are dropped, not run to the end."""

import contextlib
import time

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
