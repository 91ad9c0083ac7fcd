"""Shared utilities of the HPML course: every notebook and lab imports this package.

Importing it first also turns on Numba's CUDA simulator when there is no GPU
(see :mod:`hpml_lab_utils.device`), so ``from numba import cuda`` works anywhere.
"""

from .device import use_cuda_simulator_if_no_gpu as _use_simulator

_use_simulator()  # before anything below can import numba.cuda

from .config import fast_mode, grading, pick, seed_everything  # noqa: E402
from .device import (  # noqa: E402
    cuda_kernels_are_simulated,
    has_cuda,
    report,
    torch_device,
)
from .roofline import (  # noqa: E402
    KernelPoint,
    Peaks,
    attainable,
    measure_peaks,
    plot_roofline,
    ridge_point,
    theoretical_peak_flops,
)
from .timing import Stats, Timer, bench, speedup, speedup_ratios  # noqa: E402

__all__ = [
    "KernelPoint",
    "Peaks",
    "Stats",
    "Timer",
    "bench",
    "attainable",
    "cuda_kernels_are_simulated",
    "fast_mode",
    "grading",
    "has_cuda",
    "measure_peaks",
    "pick",
    "plot_roofline",
    "report",
    "ridge_point",
    "seed_everything",
    "speedup",
    "speedup_ratios",
    "theoretical_peak_flops",
    "torch_device",
]

__version__ = "0.1.0"
