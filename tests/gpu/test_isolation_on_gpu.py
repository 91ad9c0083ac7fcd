"""A sandboxed grading kernel given GPU 0 (`make test-gpu`): it sees that one GPU as device 0, CUDA starts under
its resident-memory limit (it would not under RLIMIT_AS), and a host-memory bomb still ends as a memory kill."""

from __future__ import annotations

import hpml_lab_utils as hl

import pytest

from autograder.isolation import gpus, processes, sandbox
from autograder.limits import ENV_VAR, Limits
from tests.autograder.test_gpu_isolation import run_in_sandbox

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.slow,
    pytest.mark.skipif(not hl.has_cuda(), reason="needs a CUDA GPU (make test-gpu on a GPU machine)"),
]

USE_THE_GPU = """
import json, os, resource
import torch
from numba import cuda
x = torch.arange(1 << 20, device="cuda", dtype=torch.float32)
print(json.dumps({"torch_devices": torch.cuda.device_count(), "sum": float(x.sum().item()),
                  "numba_simulated": cuda.is_simulator if hasattr(cuda, "is_simulator") else None,
                  "numba_gpus": len(cuda.gpus), "name": torch.cuda.get_device_name(0),
                  "nvidia_nodes": sorted(n for n in os.listdir("/dev") if n.startswith("nvidia")),
                  "as": resource.getrlimit(resource.RLIMIT_AS)[0]}))
"""


@pytest.mark.parametrize("level", [sandbox.BUBBLEWRAP, sandbox.LIMITS_ONLY])
def test_a_sandboxed_kernel_uses_its_gpu_as_device_0(level, tmp_path, monkeypatch):
    if level == sandbox.BUBBLEWRAP and sandbox._probe_bwrap()[0] != sandbox.BUBBLEWRAP:
        pytest.skip("bubblewrap not usable here (apt-get install bubblewrap)")
    isolation = "bubblewrap" if level == sandbox.BUBBLEWRAP else "limits"
    env = {sandbox.ISOLATION_ENV: isolation, gpus.GPU_ENV: "0", ENV_VAR: Limits().to_json()}
    ran = run_in_sandbox(tmp_path, USE_THE_GPU, monkeypatch, **env)
    print(f"\n[gpu] {level}: {ran['seen']} memory: {ran['record']['memory']}")
    seen = ran["seen"]
    assert seen is not None, ran
    assert seen["torch_devices"] == 1 and seen["numba_gpus"] == 1
    assert seen["sum"] == float(sum(range(1 << 20)))
    assert seen["as"] == -1  # no address-space limit: a CUDA context reserves far more than memory_mb
    if level == sandbox.BUBBLEWRAP:
        assert "nvidia0" in seen["nvidia_nodes"] and "nvidiactl" in seen["nvidia_nodes"]
    if processes.memory_cgroup_root() is not None:
        assert ran["record"]["memory"] == "resident (memory cgroup)"


def test_a_host_memory_bomb_in_a_gpu_kernel_is_killed_by_its_cgroup(tmp_path, monkeypatch):
    if processes.memory_cgroup_root() is None:
        pytest.skip("no writable memory cgroup here (root with a writable /sys/fs/cgroup)")
    bomb = """
    import json, torch, numpy as np
    torch.zeros(1, device="cuda")  # a CUDA context first: it must start under the limit
    blocks = [np.ones(256 << 20, dtype=np.uint8) for _ in range(16)]  # 4 GiB touched, over 2 GiB
    print(json.dumps({"survived": len(blocks)}))
    """
    env = {gpus.GPU_ENV: "0", ENV_VAR: Limits(memory_mb=2048).to_json()}
    ended = run_in_sandbox(tmp_path, bomb, monkeypatch, **env)
    assert ended["seen"] is None and ended["error"] == "DeadKernelError", ended
    assert ended["record"]["oom_kills"] >= 1
