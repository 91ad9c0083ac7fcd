"""Which hardware runs the notebook, and the one switch that makes CUDA code run anywhere.

Used from week 1 on (every lab's setup cell calls :func:`report`). With an NVIDIA
GPU, Numba compiles real CUDA kernels and torch uses ``cuda``. Without one,
importing :mod:`hpml_lab_utils` turns on Numba's CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``), which must happen before the first
``from numba import cuda`` in the process: kernels then run on the CPU, one
Python thread per CUDA thread, right for correctness and meaningless for speed.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys
import warnings
from functools import lru_cache

from .config import cpu_forced, fast_mode
from .machine import cpu_model, usable_cores

_SIM_VAR = "NUMBA_ENABLE_CUDASIM"


def cuda_device_count() -> int:
    """Number of CUDA devices the driver reports (0 without driver or GPU, and with ``HPML_FORCE_CPU=1``).

    Asks the driver library directly (``cuInit`` + ``cuDeviceGetCount``), so it
    never imports torch or numba.
    """
    return 0 if cpu_forced() else _driver_device_count()


@lru_cache(maxsize=1)
def _driver_device_count() -> int:
    for name in ("libcuda.so.1", "libcuda.so", "nvcuda.dll"):
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        count = ctypes.c_int(0)
        try:
            if lib.cuInit(0) != 0 or lib.cuDeviceGetCount(ctypes.byref(count)) != 0:
                return 0
        except AttributeError:
            return 0
        return int(count.value)
    return 0


def has_cuda() -> bool:
    """True when at least one CUDA GPU is usable."""
    return cuda_device_count() > 0


def use_cuda_simulator_if_no_gpu() -> bool:
    """Turn on Numba's CUDA simulator when there is no GPU; return whether it is on.

    Must run before ``numba.cuda`` is imported; :mod:`hpml_lab_utils` calls it on
    import. If ``numba.cuda`` was imported first, it warns and changes nothing.
    """
    if os.environ.get(_SIM_VAR) == "1":
        return True
    if has_cuda():
        return False
    if "numba.cuda" in sys.modules:
        warnings.warn(
            "numba.cuda was imported before hpml_lab_utils, so Numba's CUDA simulator "
            "could not be turned on and CUDA kernels will fail without a GPU. "
            "Restart the kernel and import hpml_lab_utils first.",
            stacklevel=2,
        )
        return False
    os.environ[_SIM_VAR] = "1"
    return True


def cuda_kernels_are_simulated() -> bool:
    """True when Numba CUDA kernels run on the simulator (timings not meaningful)."""
    return os.environ.get(_SIM_VAR) == "1"


def torch_cuda_usable() -> bool:
    """True when torch can run on a CUDA GPU: a GPU, a CUDA (or ROCm) build of torch, ``HPML_FORCE_CPU`` unset.

    The one test every notebook uses before calling ``torch.cuda``: a GPU machine with a CPU-only build of torch
    has a driver (:func:`has_cuda` is True for Numba) but no CUDA in torch. Imports torch.
    """
    if cpu_forced():
        return False
    try:
        import torch

        return bool(torch.cuda.is_available())
    except Exception:  # noqa: BLE001 - no torch, or a broken CUDA install: the CPU it is
        return False


def torch_device() -> str:
    """``"cuda"`` when :func:`torch_cuda_usable`, else ``"cpu"`` (imports torch)."""
    return "cuda" if torch_cuda_usable() else "cpu"


def _version(module_name: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(module_name)
    except metadata.PackageNotFoundError:
        return "not installed"


def gpu_name() -> str | None:
    """Name of CUDA device 0, or None without a GPU (imports torch only if there is one)."""
    if not has_cuda():
        return None
    try:
        import torch

        if torch_cuda_usable():
            return torch.cuda.get_device_name(0)
    except ImportError:
        pass
    return "CUDA device 0"


def report(show: bool = True) -> dict[str, str]:
    """Describe this machine and software for the top of every notebook.

    Returns the facts as a dict (and prints them unless ``show=False``): device,
    CPU model, cores, thread settings, library versions, fast mode and whether
    CUDA kernels run for real or on Numba's simulator.
    """
    gpu = gpu_name()
    facts = {
        "device": f"CUDA GPU: {gpu}" if gpu else "CPU only (no CUDA GPU found)",
        "cuda kernels": (
            "simulated on the CPU by Numba (correct results, timings not meaningful)"
            if cuda_kernels_are_simulated()
            else "real, compiled by Numba for the GPU"
        ),
        "cpu": cpu_model(),
        "cores usable": str(usable_cores()),
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "unset"),
        "python": platform.python_version(),
        "numpy": _version("numpy"),
        "numba": _version("numba"),
        "numba-cuda": _version("numba-cuda"),
        "torch": _version("torch"),
        "fast mode": "on (HPML_FAST=1: small problem sizes)" if fast_mode() else "off (full sizes)",
    }
    if show:
        width = max(len(k) for k in facts)
        print("\n".join(f"{k:<{width}} : {v}" for k, v in facts.items()))
    return facts
