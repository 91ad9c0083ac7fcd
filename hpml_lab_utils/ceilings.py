"""The roofline's ceilings, measured on this machine (week 2, lab01): peak FLOP/s and memory bandwidth.

* compute: a large GEMM (``2 n^3`` FLOPs) with numpy on the CPU, torch on a GPU;
* bandwidth: the STREAM triad ``a[i] = b[i] + s * c[i]`` as one parallel pass
  (Numba ``prange`` on the CPU, ``torch.add(..., out=)`` on a GPU), counted as
  3 arrays x 8 bytes per element, with arrays at least 4x the last-level cache.

Each function returns ``(value in SI units, a label that says how it was
measured)``; :func:`hpml_lab_utils.roofline.measure_peaks` calls them and caches the result.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from .config import pick
from .device import has_cuda
from .machine import available_memory_bytes, last_level_cache_bytes, usable_cores
from .timing import quiet_bench

MiB = 1 << 20
GiB = 1 << 30
TRIAD_SCALAR = 3.0
CPU_DTYPES = ("float32", "float64")
GPU_DTYPES = ("float32", "float64", "float16", "bfloat16")


def normalise_device(device: str) -> str:
    device = str(device).lower()
    if device.startswith("cuda"):
        return "cuda"
    if device == "cpu":
        return "cpu"
    raise ValueError(f"device must be 'cpu' or 'cuda', got {device!r}")


def torch_on_gpu() -> Any:
    """Import torch for a GPU measurement, or raise saying what to do instead.

    ``torch.cuda`` is only touched when the driver reports a GPU and torch is a
    CUDA/ROCm build.
    """
    if not has_cuda():
        raise RuntimeError("no CUDA GPU found: measure the CPU with device='cpu'")
    import torch

    if torch.version.cuda is None and getattr(torch.version, "hip", None) is None:
        raise RuntimeError("torch is a CPU-only build: install a CUDA build of torch, or use device='cpu'")
    if not torch.cuda.is_available():
        raise RuntimeError("torch sees no CUDA GPU: check the driver, or use device='cpu'")
    return torch


# ------------------------------------------------------------------- measurements


def measure_gemm_flops(dtype: str = "float32", device: str = "cpu", n: int | None = None) -> tuple[float, str]:
    """Peak compute of ``device`` as the best GEMM rate, in FLOP/s (week 2, lab01).

    Times ``C = A @ B`` with ``n x n`` matrices, ``FLOP = 2 n^3``; best of the
    runs after a warm-up (``bench``'s budget). CPU: numpy (its BLAS), ``n``
    defaults to 2048 (1024 in fast mode), dtypes float32/float64. GPU
    (``device="cuda"``): torch, ``n`` = 8192 (4096), half that for float64,
    dtypes float32/float64/float16/bfloat16. Returns ``(flop_per_s, source)``,
    e.g. ``(1.8e11, "GEMM 2048^3 numpy float32, best of 12")``.
    """
    device = normalise_device(device)
    if device == "cpu":
        if dtype not in CPU_DTYPES:
            raise ValueError(f"on the CPU the GEMM peak is measured for {CPU_DTYPES}, not {dtype!r}")
        n = int(n or pick(2048, 1024))
        rng = np.random.default_rng(0)
        a = rng.random((n, n), dtype=np.dtype(dtype))
        b = rng.random((n, n), dtype=np.dtype(dtype))
        c = np.empty((n, n), dtype=np.dtype(dtype))
        np.matmul(a, b, out=c)
        reference = a[0].astype(np.float64) @ b.astype(np.float64)
        if not np.allclose(c[0], reference, rtol=1e-3 if dtype == "float32" else 1e-10):
            raise RuntimeError(f"numpy matmul gave a wrong result for {dtype}: the BLAS install is broken")
        stats = quiet_bench(np.matmul, a, b, out=c, name=f"GEMM {dtype}", min_repeats=5, use_cuda=False)
        library = "numpy"
    else:
        if dtype not in GPU_DTYPES:
            raise ValueError(f"on the GPU the GEMM peak is measured for {GPU_DTYPES}, not {dtype!r}")
        torch = torch_on_gpu()
        n = int(n or (pick(8192, 4096) // (2 if dtype == "float64" else 1)))
        tdtype = getattr(torch, dtype)
        gen = torch.Generator(device="cuda").manual_seed(0)
        a = torch.rand((n, n), device="cuda", dtype=tdtype, generator=gen)
        b = torch.rand((n, n), device="cuda", dtype=tdtype, generator=gen)
        c = torch.empty((n, n), device="cuda", dtype=tdtype)
        torch.matmul(a, b, out=c)
        reference = a[0].double() @ b.double()
        if not torch.allclose(
            c[0].double(), reference, rtol=5e-2 if tdtype in (torch.float16, torch.bfloat16) else 1e-2
        ):
            raise RuntimeError(f"torch matmul on the GPU gave a wrong result for {dtype}")
        stats = quiet_bench(torch.matmul, a, b, out=c, name=f"GEMM {dtype}", min_repeats=5, use_cuda=True)
        library = "torch cuda"
    flops = 2.0 * n**3 / stats.min_s
    return flops, f"GEMM {n}^3 {library} {dtype}, best of {stats.n}"


@lru_cache(maxsize=1)
def _cpu_triad_kernels() -> tuple[Callable[..., None], Callable[..., None]]:
    """Numba kernels ``(triad, fill)``, compiled on first use (numba is imported lazily).

    Compiled code is cached on disk by Numba where it can write (``__pycache__``
    or its user cache), which saves about a second per new process.
    """
    from numba import njit, prange

    def triad(a: np.ndarray, b: np.ndarray, c: np.ndarray, scalar: float) -> None:
        for i in prange(a.shape[0]):
            a[i] = b[i] + scalar * c[i]

    def fill(x: np.ndarray, value: float) -> None:
        # parallel first touch: pages land near the threads that later stream them
        for i in prange(x.shape[0]):
            x[i] = value

    try:
        return njit(parallel=True, cache=True)(triad), njit(parallel=True, cache=True)(fill)
    except RuntimeError:  # no writable cache location: compile in memory only
        return njit(parallel=True)(triad), njit(parallel=True)(fill)


def _default_array_bytes(device: str = "cpu") -> tuple[int, str]:
    """Bytes per triad array and a note: at least 4x the last-level cache (STREAM's rule).

    CPU: ``max(4 x LLC, 256 MiB)`` (fast mode: ``max(4 x LLC, 32 MiB)``),
    capped at 2 GiB (fast: 512 MiB) and at 1/8 of available memory, in which
    case the note says the rule is broken.
    """
    if normalise_device(device) == "cuda":
        torch = torch_on_gpu()
        l2 = int(getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 0) or 64 * MiB)
        want = max(4 * l2, pick(1 * GiB, 256 * MiB))
        free, _total = torch.cuda.mem_get_info()
        size = min(want, free // 8)
        llc_note = f"L2 {l2 // MiB} MiB"
        rule_ok = size >= 4 * l2
    else:
        llc = last_level_cache_bytes()
        want = max(4 * llc, pick(256 * MiB, 32 * MiB))
        cap = pick(2 * GiB, 512 * MiB)
        available = available_memory_bytes()
        if available is not None:
            cap = min(cap, available // 8)
        size = min(want, cap)
        llc_note = f"LLC {llc // MiB} MiB"
        rule_ok = size >= 4 * llc
    note = f"{'>=' if rule_ok else 'below STREAM rule of'} 4x {llc_note}"
    return int(size), note


def measure_bandwidth(device: str = "cpu", nbytes_per_array: int | None = None) -> tuple[float, str]:
    """Memory bandwidth of ``device`` with the STREAM triad, in bytes/s (week 2, lab01).

    ``a[i] = b[i] + s * c[i]`` over float64 arrays of ``nbytes_per_array``
    bytes each (default: see :func:`_default_array_bytes`, at least 4x the
    last-level cache), counted as ``3 * 8`` bytes per element (STREAM's rule:
    write-allocate traffic not counted). One pass: a Numba ``prange`` kernel on
    the CPU (numpy's ``b + s*c`` would make a temporary and move 5 arrays),
    ``torch.add(b, c, alpha=s, out=a)`` on a GPU. Best of the runs after the
    first. Returns ``(bytes_per_s, source)``, e.g.
    ``(1.8e10, "triad numba 3x420 MiB float64 (>= 4x LLC 105 MiB), best of 5")``.
    """
    device = normalise_device(device)
    if nbytes_per_array is None:
        nbytes_per_array, note = _default_array_bytes(device)
    else:
        note = "size given"
    n = max(int(nbytes_per_array) // 8, 1024)
    expected = 1.0 + TRIAD_SCALAR * 2.0
    repeats = pick(10, 5)
    if device == "cpu":
        import numba

        triad, fill = _cpu_triad_kernels()
        threads_before = numba.get_num_threads()
        numba.set_num_threads(max(1, min(usable_cores(), numba.config.NUMBA_NUM_THREADS)))
        try:
            a, b, c = np.empty(n), np.empty(n), np.empty(n)
            fill(a, 0.0)
            fill(b, 1.0)
            fill(c, 2.0)
            stats = quiet_bench(
                triad,
                a,
                b,
                c,
                TRIAD_SCALAR,
                name="triad",
                warmup_s=0.0,
                budget_s=0.0,
                min_repeats=repeats,
                use_cuda=False,
            )
        finally:
            numba.set_num_threads(threads_before)
        ok = a[0] == expected and a[-1] == expected and bool(np.all(a[:: max(n // 1000, 1)] == expected))
        library = "numba"
    else:
        torch = torch_on_gpu()
        a = torch.zeros(n, device="cuda", dtype=torch.float64)
        b = torch.full((n,), 1.0, device="cuda", dtype=torch.float64)
        c = torch.full((n,), 2.0, device="cuda", dtype=torch.float64)
        stats = quiet_bench(
            torch.add,
            b,
            c,
            alpha=TRIAD_SCALAR,
            out=a,
            name="triad",
            warmup_s=0.0,
            budget_s=0.0,
            min_repeats=repeats,
            use_cuda=True,
        )
        ok = bool((a[:: max(n // 1000, 1)] == expected).all().item()) and float(a[-1].item()) == expected
        library = "torch cuda"
    if not ok:
        raise RuntimeError("the triad kernel computed a wrong result; its bandwidth would be meaningless")
    bandwidth = 3.0 * 8.0 * n / stats.min_s
    size_mib = 8 * n / MiB
    return bandwidth, f"triad {library} 3x{size_mib:.0f} MiB float64 ({note}), best of {stats.n}"
