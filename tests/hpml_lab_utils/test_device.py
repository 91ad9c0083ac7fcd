"""hpml_lab_utils.device: GPU detection, the CUDA simulator switch, report()."""

import os
import subprocess
import sys

import hpml_lab_utils as hl
from hpml_lab_utils import device

import pytest


def run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    """Run code in a fresh interpreter (the simulator switch only works before numba.cuda is imported)."""
    full_env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    full_env.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full_env, timeout=120)


def test_forced_cpu_reports_no_gpu_to_numba_torch_and_the_timers(monkeypatch):
    """HPML_FORCE_CPU=1, even set after the driver was asked once: no GPU anywhere the course looks."""
    from hpml_lab_utils.timing import Timer

    import torch

    device.cuda_device_count()  # the driver's answer is cached; the switch must still win
    monkeypatch.setenv("HPML_FORCE_CPU", "1")
    assert device.cuda_device_count() == 0
    assert device.has_cuda() is False
    assert device.torch_device() == "cpu"
    assert device.gpu_name() is None
    assert Timer().use_cuda is False
    assert torch.zeros(1, device=device.torch_device()).device.type == "cpu"


def test_without_the_switch_torch_device_follows_torch(monkeypatch):
    import torch

    monkeypatch.delenv("HPML_FORCE_CPU", raising=False)
    assert device.torch_device() == ("cuda" if torch.cuda.is_available() else "cpu")


@pytest.mark.slow
def test_import_turns_on_simulator_and_kernels_run_without_gpu():
    code = """
import hpml_lab_utils
import numpy as np
from numba import cuda
assert hpml_lab_utils.cuda_kernels_are_simulated()

@cuda.jit
def add_kernel(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]

a = np.arange(100, dtype=np.float32)
out = np.zeros_like(a)
add_kernel[4, 32](a, 2 * a, out)
assert np.array_equal(out, 3 * a), out
print("kernel ok")
"""
    result = run_python(code, HPML_FORCE_CPU="1")
    assert result.returncode == 0, result.stderr
    assert "kernel ok" in result.stdout


@pytest.mark.slow
def test_importing_numba_cuda_first_warns_with_next_step():
    result = run_python(
        "import warnings; warnings.simplefilter('always')\nfrom numba import cuda\nimport hpml_lab_utils",
        HPML_FORCE_CPU="1",
    )
    assert result.returncode == 0, result.stderr
    assert "import hpml_lab_utils first" in result.stderr


def test_report_lists_the_facts_a_reader_needs(capsys):
    facts = hl.report()
    printed = capsys.readouterr().out
    for key in ("device", "cuda kernels", "cpu", "cores usable", "numpy", "numba", "torch", "fast mode"):
        assert key in facts
        assert key in printed
    assert int(facts["cores usable"]) >= 1
    assert facts["numpy"][0].isdigit()


def test_report_can_stay_quiet(capsys):
    hl.report(show=False)
    assert capsys.readouterr().out == ""


def test_torch_device_matches_torch():
    import torch

    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert hl.torch_device() == expected


@pytest.mark.skipif(not hl.has_cuda(), reason="needs a CUDA GPU")
def test_gpu_name_given_when_gpu_present():
    assert device.gpu_name()


def test_force_cpu_turns_torch_and_triton_to_the_cpu(monkeypatch):
    from hpml_lab_utils import device, triton_support

    monkeypatch.setenv("HPML_FORCE_CPU", "1")
    assert not device.torch_cuda_usable() and device.torch_device() == "cpu"
    assert triton_support.triton_device() == "cpu"


def test_torch_cuda_usable_agrees_with_torch_here(monkeypatch):
    from hpml_lab_utils import device

    import torch

    monkeypatch.delenv("HPML_FORCE_CPU", raising=False)
    assert device.torch_cuda_usable() == torch.cuda.is_available()
