"""Checks that only a GPU can answer (`make test-gpu`); each skips with its reason where there is none.

Every figure is a same-run comparison: a GPU result against the CUDA simulator's or against FP32 on the same
inputs, the registers ptxas reports against the driver's, a speed as a ratio. The figures are printed (`-s`) for
the closing note of a GPU run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import hpml_lab_utils as hl

import numpy as np
import pytest

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not hl.has_cuda(), reason="needs a CUDA GPU (make test-gpu on a GPU machine)"),
]

SAXPY = textwrap.dedent(
    """
    import math
    import numpy as np
    from numba import cuda

    @cuda.jit
    def scaled_sin(a, x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * math.sin(x[i]) + x[i]

    def run(n, seed):
        x = np.random.default_rng(seed).standard_normal(n).astype(np.float32)
        out = np.zeros_like(x)
        scaled_sin[(n + 127) // 128, 128](np.float32(1.5), x, out)
        return out
    """
)


def _run_on_simulator(n: int, seed: int) -> np.ndarray:
    code = SAXPY + f"\nimport sys\nsys.stdout.write(__import__('json').dumps(run({n}, {seed}).tolist()))\n"
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=dict(os.environ, NUMBA_ENABLE_CUDASIM="1"),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return np.asarray(json.loads(done.stdout), dtype=np.float32)


def test_numba_kernel_on_the_gpu_matches_the_simulator_and_cuda_events_time_it():
    from numba import cuda

    assert not hl.cuda_kernels_are_simulated()
    names: dict = {}
    exec(compile(SAXPY, "<saxpy>", "exec"), names)
    n, seed = 4097, 12  # not a multiple of the block: the bound check matters
    on_gpu = names["run"](n, seed)
    on_sim = _run_on_simulator(n, seed)
    np.testing.assert_allclose(on_gpu, on_sim, rtol=2e-6, atol=2e-6)  # sin in float32: a few ulp apart

    x = cuda.to_device(np.random.default_rng(1).standard_normal(1 << 22).astype(np.float32))
    out = cuda.device_array_like(x)
    ms = hl.time_kernel_ms(lambda: names["scaled_sin"][(x.size + 255) // 256, 256](np.float32(1.5), x, out))
    assert ms is not None and ms > 0
    print(f"\n[gpu] scaled_sin on {x.size:,} floats: {ms:.4f} ms (CUDA events), {8 * x.size / ms / 1e6:.0f} GB/s")


def test_ptxas_registers_match_the_drivers():
    from hpml_lab_utils import ptx

    from numba import cuda

    tools = ptx.toolchain()
    if not tools.available:
        pytest.skip(tools.why)
    source = textwrap.dedent(
        """
        @cuda.jit
        def tile_sum(a, out):
            i = cuda.grid(1)
            if i < a.size:
                acc = 0.0
                for k in range(16):
                    acc += a[(i + k) % a.size] * (k + 1)
                out[i] = acc
        """
    )
    names = {"cuda": cuda}
    exec(compile(source, "<tile_sum>", "exec"), names)
    kernel = names["tile_sum"]
    signature = "void(float32[:], float32[:])"
    cc = cuda.get_current_device().compute_capability
    from_ptxas = ptx.ptxas_usage(ptx.compile_ptx(source, signature, cc=cc, name="tile_sum"), cc=cc).registers
    from_driver = kernel.compile(signature).regs_per_thread  # the driver's count (cuFuncGetAttribute)
    print(f"\n[gpu] tile_sum on sm_{cc[0]}{cc[1]}: ptxas {from_ptxas} registers, driver {from_driver}")
    assert from_ptxas == from_driver


def test_a_cuda_cpp_kernel_runs_on_numbas_arrays_and_names_the_kernels_it_has():
    from hpml_lab_utils import cuda_cpp, ptx

    from numba import cuda

    tools = ptx.toolchain()
    if not tools.available:
        pytest.skip(tools.why)
    source = """
    extern "C" __global__ void scale_add(const float* x, float* y, float a, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = a * x[i] + y[i];
    }
    __global__ void mangled(float* x) { x[0] = 1.0f; }
    """
    cc = cuda.get_current_device().compute_capability
    text = ptx.compile_cuda_cpp(source, cc, name="scale_add.cu")
    kernel = cuda_cpp.load_kernel(text, "scale_add")
    rng = np.random.default_rng(3)
    n = 5003  # not a multiple of the block: the C++ bound check is the kernel's own
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n + 7).astype(np.float32)
    d_x, d_y = cuda.to_device(x), cuda.to_device(y)
    kernel[(n + 127) // 128, 128](d_x, d_y, np.float32(2.5), np.int32(n))
    got = d_y.copy_to_host()
    np.testing.assert_allclose(got[:n], 2.5 * x + y[:n], rtol=1e-6, atol=1e-6)
    assert np.array_equal(got[n:], y[n:]), "threads past n wrote"
    with pytest.raises(RuntimeError, match=r"no kernel named 'mangled'.*_Z7mangledPf.*extern \"C\""):
        cuda_cpp.load_kernel(text, "mangled")

    big = cuda.to_device(np.zeros(1 << 24, np.float32))
    out = cuda.device_array_like(big)
    ms = hl.time_kernel_ms(lambda: kernel[(big.size + 255) // 256, 256](big, out, np.float32(2.0), np.int32(big.size)))
    assert ms is not None and ms > 0
    print(
        f"\n[gpu] C++ scale_add via cuLaunchKernel on {big.size:,} floats: {ms:.4f} ms, {12 * big.size / ms / 1e6:.0f} GB/s"
    )


def test_fp16_tensor_cores_against_true_fp32():
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False  # true FP32: the reference
    n = 4096
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(n, n, device="cuda", generator=g)
    b = torch.randn(n, n, device="cuda", generator=g)
    exact = (a.double() @ b.double()).float()
    fp32 = a @ b
    fp16 = (a.half() @ b.half()).float()
    scale = exact.abs().max().item()
    err32 = (fp32 - exact).abs().max().item() / scale
    err16 = (fp16 - exact).abs().max().item() / scale
    # FP16 inputs carry 11 significant bits (relative error 2**-11 each): the product's error is of that order
    assert err32 < 1e-5 < err16 < 2e-2
    a16, b16 = a.half(), b.half()
    t32 = hl.bench(lambda: a @ b, use_cuda=True).median_s
    t16 = hl.bench(lambda: a16 @ b16, use_cuda=True).median_s
    speed = t32 / t16
    flops = 2 * n**3
    print(
        f"\n[gpu] {n}^3 matmul: FP32 {flops / t32 / 1e12:.1f} TFLOP/s (max rel. error {err32:.1e}), "
        f"FP16 tensor cores {flops / t16 / 1e12:.1f} TFLOP/s (error {err16:.1e}): {speed:.1f}x"
    )
    assert speed > 2  # tensor cores: several times FP32's rate on any GPU that has them (Volta on)


def test_fp16_gradscaler_step_skips_an_overflow_and_applies_a_finite_step():
    import torch

    torch.manual_seed(0)
    model = torch.nn.Linear(64, 8).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda", init_scale=2.0**16)
    x, y = torch.randn(32, 64, device="cuda"), torch.randn(32, 8, device="cuda")

    def step(inputs):
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(model(inputs), y)
        assert loss.dtype == torch.float32 and model(inputs).dtype == torch.float32
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()

    before = model.weight.detach().clone()
    step(x * 1e30)  # the FP16 forward overflows: the step is skipped and the scale halves
    assert torch.equal(model.weight, before) and scaler.get_scale() == 2.0**15
    step(x)
    assert not torch.equal(model.weight, before) and torch.isfinite(model.weight).all()
    assert scaler.get_scale() == 2.0**15  # one good step keeps the scale (it grows after 2000)


@pytest.mark.skipif(hl.device.cuda_device_count() < 2, reason="NCCL all-reduce needs two GPUs")
def test_nccl_all_reduce_on_two_gpus(tmp_path):
    script = textwrap.dedent(
        """
        import os, torch, torch.distributed as dist
        dist.init_process_group("nccl")
        rank = dist.get_rank()
        torch.cuda.set_device(rank)
        t = torch.full((1 << 20,), float(rank + 1), device="cuda")
        dist.all_reduce(t)
        assert torch.all(t == 3.0), t[:4]
        dist.destroy_process_group()
        """
    )
    (tmp_path / "allreduce.py").write_text(script)
    done = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node=2", str(tmp_path / "allreduce.py")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
