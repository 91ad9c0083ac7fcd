"""Shared utilities of the HPML course: every notebook and lab imports this package.

Importing it first also turns on Numba's CUDA simulator when there is no GPU
(see :mod:`hpml_lab_utils.device`), so ``from numba import cuda`` works anywhere.
"""

from .device import use_cuda_simulator_if_no_gpu as _use_simulator

_use_simulator()  # before anything below can import numba.cuda

from . import machine  # noqa: E402  (hl.machine: cores, caches, memory, FLOPs per cycle of this machine)
from .config import fast_mode, grading, pick, seed_everything  # noqa: E402
from .cuda_helpers import (  # noqa: E402
    gpu_only,
    grid_2d_owners,
    grid_stride_owners,
    kernel_speedup,
    plot_grid_2d_owners,
    plot_grid_stride_owners,
    time_kernel_ms,
    timing_note,
    transfer_bandwidth_gbs,
)
from .device import (  # noqa: E402
    cuda_kernels_are_simulated,
    has_cuda,
    report,
    torch_cuda_usable,
    torch_device,
)
from .roofline import KernelPoint, Peaks, measure_peaks, theoretical_peak_flops  # noqa: E402
from .roofline_plot import plot_roofline  # noqa: E402
from .timing import Stats, Timer, bench, quiet_bench, speedup, speedup_ratios  # noqa: E402

__all__ = [
    "KernelPoint",
    "Peaks",
    "Stats",
    "Timer",
    "bench",
    "cuda_kernels_are_simulated",
    "fast_mode",
    "gpu_only",
    "grading",
    "grid_2d_owners",
    "grid_stride_owners",
    "has_cuda",
    "kernel_speedup",
    "machine",
    "measure_peaks",
    "pick",
    "plot_grid_2d_owners",
    "plot_grid_stride_owners",
    "plot_roofline",
    "quiet_bench",
    "report",
    "seed_everything",
    "speedup",
    "speedup_ratios",
    "theoretical_peak_flops",
    "time_kernel_ms",
    "timing_note",
    "torch_cuda_usable",
    "torch_device",
    "transfer_bandwidth_gbs",
]

__version__ = "0.1.0"
