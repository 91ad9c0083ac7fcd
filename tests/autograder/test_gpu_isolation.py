"""Grading on GPUs, checked without one: which GPUs a batch hands out, what of ``/dev`` a sandboxed kernel sees
(stand-in device nodes, listed from inside a real kernel), and the resident-memory limit a CUDA kernel runs under.
The same code on a real GPU: tests/gpu (`make test-gpu`)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.grading import scheduler
from autograder.isolation import gpus, processes, sandbox
from autograder.isolation.sandbox import BUBBLEWRAP, LIMITS_ONLY
from autograder.limits import ENV_VAR, Limits

STAND_INS = ("nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm")


def test_visible_gpus_follow_the_scheduler_then_the_device_nodes(tmp_path, monkeypatch):
    for name in ("nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm"):
        (tmp_path / name).touch()
    monkeypatch.setenv(gpus.DEV_DIR_ENV, str(tmp_path))
    assert gpus.visible_gpus({}) == ["0", "1"]
    assert gpus.visible_gpus({"CUDA_VISIBLE_DEVICES": "1"}) == ["1"]
    assert gpus.visible_gpus({"NVIDIA_VISIBLE_DEVICES": "all"}) == ["0", "1"]
    assert gpus.visible_gpus({"CUDA_VISIBLE_DEVICES": "GPU-ab12"}) == ["GPU-ab12"]
    for hidden in ("", "-1", "none"):
        assert gpus.visible_gpus({"CUDA_VISIBLE_DEVICES": hidden}) == []
    monkeypatch.setenv(gpus.DEV_DIR_ENV, str(tmp_path / "empty"))
    assert gpus.visible_gpus({"CUDA_VISIBLE_DEVICES": "0,1"}) == []  # no device node: nothing to hand out


def test_slots_share_each_gpu_at_most_jobs_per_gpu_times():
    assert [gpus.assign(s, ["0", "1"], 2) for s in range(4)] == ["0", "0", "1", "1"]
    assert [gpus.assign(s, ["0", "1"], 1) for s in range(2)] == ["0", "1"]
    assert gpus.assign(0, [], 3) is None
    assert gpus.kernel_env("3", bubblewrap=True) == {"CUDA_VISIBLE_DEVICES": "0"}
    assert gpus.kernel_env("3", bubblewrap=False) == {"CUDA_VISIBLE_DEVICES": "3"}
    assert gpus.kernel_env(None, bubblewrap=False) == {"CUDA_VISIBLE_DEVICES": ""}


def test_proc_entry_is_the_gpu_whose_device_minor_matches(tmp_path):
    for bus, minor in (("0000:3b:00.0", 1), ("0000:1a:00.0", 0)):
        (tmp_path / bus).mkdir()
        (tmp_path / bus / "information").write_text(f"Model: Stand-in\nDevice Minor: \t {minor}\n")
    assert gpus.proc_entry("1", tmp_path) == str(tmp_path / "0000:3b:00.0")
    assert gpus.proc_entry("2", tmp_path) is None and gpus.proc_entry(None, tmp_path) is None


def test_four_workers_on_two_gpus_get_two_each_and_never_more(tmp_path, monkeypatch):
    """The batch's own loop (run_workers) with workers that only sleep: which GPU each one was given, and how many
    used each GPU at once."""
    started, live, peak = [], {}, {}

    def fake_start(lab, task, paths, snapshot, limits, jobs, gpu, shared):
        task.job = tmp_path / task.student_id
        task.job.mkdir()
        task.proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.4)"])
        task.started = time.perf_counter()
        live[task.student_id] = (task, gpu)
        using = [g for t, g in live.values() if t.proc.poll() is None]  # workers whose process still runs
        for g in set(using):
            peak[g] = max(peak.get(g, 0), using.count(g))
        started.append((task.student_id, task.slot, gpu, shared))

    def finished(task):
        del live[task.student_id]

    monkeypatch.setattr(scheduler, "start_worker", fake_start)
    tasks = [scheduler.GradingTask(f"s{i}", {}) for i in range(8)]
    scheduler.run_workers("toy", tasks, None, None, Limits(), 4, finished, ["0", "1"], 2)
    assert len(started) == 8
    assert [g for _, _, g, _ in started[:4]] == ["0", "0", "1", "1"]  # four at once: two per GPU
    assert {shared for *_, shared in started} == {2}
    assert peak == {"0": 2, "1": 2}
    slots = {slot: gpu for _, slot, gpu, _ in started}
    assert slots == {0: "0", 1: "0", 2: "1", 3: "1"}  # a freed place keeps its GPU


# --------------------------------------------------------------------------- inside a real sandboxed kernel


def _stand_in_nodes(folder: Path) -> Path:
    """Character devices named like NVIDIA's (each a copy of /dev/null's numbers: harmless to open)."""
    folder.mkdir()
    null = os.stat("/dev/null").st_rdev
    for name in STAND_INS:
        os.mknod(folder / name, 0o666 | stat.S_IFCHR, null)
    return folder


def run_in_sandbox(tmp_path: Path, code: str, monkeypatch, **env: str) -> dict:
    """Run ``code`` (which prints one JSON line) in a sandboxed kernel with ``env`` set; return the JSON and the
    kernel manager's exit record."""
    from nbclient import NotebookClient

    scratch = tmp_path / "scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    report = tmp_path / "kernel.jsonl"
    monkeypatch.setenv(sandbox.SCRATCH_ENV, str(scratch))
    monkeypatch.setenv(sandbox.REPORT_ENV, str(report))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    nb = new_notebook(
        cells=[new_code_cell(textwrap.dedent(code))],
        metadata={"kernelspec": {"name": "hpml", "display_name": "Python 3 (HPML)", "language": "python"}},
    )
    error = None
    try:
        NotebookClient(nb, kernel_manager_class=sandbox.SandboxedKernelManager, timeout=120).execute()
    except Exception as exc:  # noqa: BLE001 - the caller checks how the kernel ended
        error = type(exc).__name__
    outputs = [o for o in nb.cells[0].get("outputs", []) if o.get("name") == "stdout"]
    seen = json.loads(outputs[-1]["text"].strip().splitlines()[-1]) if outputs else None
    record = json.loads(report.read_text().splitlines()[-1])
    return {"seen": seen, "record": record, "error": error}


LIST_DEVICES = """
import json, os, resource
print(json.dumps({"dev": sorted(os.listdir("/dev")), "cuda": os.environ.get("CUDA_VISIBLE_DEVICES"),
                  "as": resource.getrlimit(resource.RLIMIT_AS)[0]}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("level", [BUBBLEWRAP, LIMITS_ONLY])
def test_the_kernel_sees_its_gpu_node_and_the_control_nodes_and_nothing_else(level, tmp_path, monkeypatch):
    if level == BUBBLEWRAP and sandbox._probe_bwrap()[0] != BUBBLEWRAP:
        pytest.skip("bubblewrap not usable here (apt-get install bubblewrap)")
    if os.geteuid() != 0:
        pytest.skip("stand-in device nodes need root (mknod)")
    nodes = _stand_in_nodes(tmp_path / "devices")
    isolation = "bubblewrap" if level == BUBBLEWRAP else "limits"
    common = {sandbox.ISOLATION_ENV: isolation, gpus.DEV_DIR_ENV: str(nodes), ENV_VAR: Limits().to_json()}
    without = run_in_sandbox(tmp_path / "cpu", LIST_DEVICES, monkeypatch, **common)
    monkeypatch.delenv(gpus.GPU_ENV, raising=False)
    with_gpu = run_in_sandbox(tmp_path / "gpu", LIST_DEVICES, monkeypatch, **common, **{gpus.GPU_ENV: "1"})
    assert without["seen"]["cuda"] == ""  # no GPU handed out: CUDA sees none
    assert with_gpu["record"]["gpu"] == "1"
    if level == BUBBLEWRAP:
        added = set(with_gpu["seen"]["dev"]) - set(without["seen"]["dev"])
        assert added == {"nvidia1", "nvidiactl", "nvidia-uvm"}  # not nvidia0, the other worker's
        assert not any(n.startswith("nvidia") for n in without["seen"]["dev"])
        assert with_gpu["seen"]["cuda"] == "0"  # its one GPU is device 0
    else:
        assert with_gpu["seen"]["cuda"] == "1"  # CUDA renumbers the visible devices from 0
    # a kernel with a GPU has its resident memory capped, not its address space (CUDA reserves tens of GiB)
    assert with_gpu["seen"]["as"] == -1 and without["seen"]["as"] == Limits().memory_bytes
    if processes.memory_cgroup_root() is not None:
        assert with_gpu["record"]["memory"] == "resident (memory cgroup)"


@pytest.mark.slow
def test_a_kernel_over_its_memory_cgroup_is_killed_and_counted(tmp_path, monkeypatch):
    if processes.memory_cgroup_root() is None:
        pytest.skip("no writable memory cgroup here (root with a writable /sys/fs/cgroup)")
    limits = Limits(memory_mb=400, cell_timeout_s=60)
    bomb = """
    import json, numpy as np
    blocks = [np.ones(64 << 20, dtype=np.uint8) for _ in range(16)]  # 1 GiB, every page touched
    print(json.dumps({"survived": len(blocks)}))
    """
    ended = run_in_sandbox(tmp_path, bomb, monkeypatch, **{sandbox.MEMORY_ENV: "resident", ENV_VAR: limits.to_json()})
    assert ended["seen"] is None and ended["error"] == "DeadKernelError"
    assert ended["record"]["memory"] == "resident (memory cgroup)"
    assert ended["record"]["oom_kills"] >= 1 and ended["record"]["signal"] == 9
