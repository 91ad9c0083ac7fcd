"""Numba CUDA on a GPU or on the simulator: timing, transfers, thread maps (weeks 5-6, lab04).

With an NVIDIA GPU, Numba compiles kernels for it and the helpers here time them
with CUDA events. Without one, :mod:`hpml_lab_utils` has switched on Numba's CUDA
simulator, which runs every CUDA thread as a Python thread: right for correctness
(indexing, bounds, shared memory, ``syncthreads``) and meaningless for speed.
Every timing helper therefore returns ``None`` on the simulator instead of a
number that would mislead, and :func:`gpu_only` says so in one line.

* :func:`time_kernel_ms`: median milliseconds of a launch between two CUDA events.
* :func:`kernel_speedup`: median of interleaved per-round ratios ``t_slow / t_fast``.
* :func:`transfer_bandwidth_gbs`: host-to-device and device-to-host GB/s, pageable vs pinned.
* :func:`grid_stride_owners`, :func:`grid_2d_owners`: which thread handles which element
  (the grid-stride map from its rule, the 2-D map recorded by a kernel), and
  :func:`plot_grid_stride_owners`, :func:`plot_grid_2d_owners` to show it.

``numba.cuda`` is imported inside the functions, never at module import: importing
:mod:`hpml_lab_utils` (which turns the simulator on first) stays cheap.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from .config import pick
from .device import cuda_kernels_are_simulated

SIMULATOR_NOTE = (
    "no GPU found: kernels run on Numba's CUDA simulator (one Python thread per CUDA thread), "
    "which checks results but whose timings are not meaningful"
)


def timing_note() -> str:
    """One line for a notebook: whether kernel timings in this run mean anything (lab04)."""
    if cuda_kernels_are_simulated():
        return SIMULATOR_NOTE
    return "CUDA GPU found: kernels are compiled for it and timed with CUDA events"


def gpu_only(what: str) -> bool:
    """True on a real GPU; on the simulator print that ``what`` is skipped and why, and return False (lab04).

    Use it to guard a GPU-only measurement::

        if gpu_only("GFLOP/s of the matmul kernels"):
            ...
    """
    if cuda_kernels_are_simulated():
        print(f"skipped on this machine: {what} ({SIMULATOR_NOTE}).")
        return False
    return True


# ``numba.cuda``, imported on first use. Kernels below must see it as a *module global*
# named ``cuda``: the simulator swaps the globals of a kernel's module that are numba.cuda
# for its fake module while the kernel runs (a local or closure variable is not swapped).
cuda: Any = None


def _cuda() -> Any:
    global cuda
    if cuda is None:
        from numba import cuda as numba_cuda

        cuda = numba_cuda
    return cuda


def time_kernel_ms(launch: Callable[[], Any], repeats: int | None = None, warmup: int = 2) -> float | None:
    """Median milliseconds of ``launch()`` measured between two CUDA events; None on the simulator (lab04).

    ``launch`` starts kernel(s) or copies on the default stream (e.g.
    ``lambda: kernel[grid, block](d_a, d_b, d_out)``, device arrays already
    transferred). It is called ``warmup`` times first (the first call compiles
    the kernel), then ``repeats`` times (default 20, 5 with ``HPML_FAST=1``),
    each between ``start.record()`` and ``end.record(); end.synchronize()``.
    """
    if cuda_kernels_are_simulated():
        return None
    cu = _cuda()
    repeats = pick(20, 5) if repeats is None else int(repeats)
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    for _ in range(max(int(warmup), 1)):
        launch()
    cu.synchronize()
    start, end = cu.event(timing=True), cu.event(timing=True)
    times = []
    for _ in range(repeats):
        start.record()
        launch()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return float(statistics.median(times))


def kernel_speedup(
    fast_launch: Callable[[], Any],
    slow_launch: Callable[[], Any],
    rounds: int = 7,
    repeats: int = 3,
) -> float | None:
    """Median over ``rounds`` of ``t_slow / t_fast``, interleaved, timed with CUDA events; None on the simulator.

    Each round times both launches (:func:`time_kernel_ms` with ``repeats``),
    alternating which goes first so drifting clocks hit both alike. A ratio,
    never an absolute time, is what a test may compare (lab04).
    """
    if cuda_kernels_are_simulated():
        return None
    ratios = []
    for r in range(int(rounds)):
        if r % 2 == 0:
            t_fast = time_kernel_ms(fast_launch, repeats=repeats, warmup=1)
            t_slow = time_kernel_ms(slow_launch, repeats=repeats, warmup=1)
        else:
            t_slow = time_kernel_ms(slow_launch, repeats=repeats, warmup=1)
            t_fast = time_kernel_ms(fast_launch, repeats=repeats, warmup=1)
        ratios.append(t_slow / max(t_fast, 1e-9))
    return float(statistics.median(ratios))


def transfer_bandwidth_gbs(nbytes: int | None = None, repeats: int | None = None) -> dict[str, float] | None:
    """Measured copy bandwidth between host and GPU in GB/s; None on the simulator (week 6, lab04).

    Copies a buffer of ``nbytes`` (default 256 MiB, 32 MiB with ``HPML_FAST=1``)
    host-to-device and device-to-host, from ordinary (pageable) NumPy memory and
    from page-locked (pinned) memory, ``cuda.pinned_array``; best of ``repeats``
    (default 5, 3 in fast mode), each between two CUDA events. Keys:
    ``"h2d pageable"``, ``"h2d pinned"``, ``"d2h pageable"``, ``"d2h pinned"``.
    Pageable copies go through a pinned staging buffer of the driver, so they
    are usually slower; GB/s = bytes / seconds / 1e9.
    """
    if cuda_kernels_are_simulated():
        return None
    cu = _cuda()
    nbytes = int(pick(256 << 20, 32 << 20) if nbytes is None else nbytes)
    repeats = int(pick(5, 3) if repeats is None else repeats)
    n = max(nbytes // 4, 1)
    pageable = np.ones(n, dtype=np.float32)
    pinned = cu.pinned_array(n, dtype=np.float32)
    pinned[:] = 1.0
    device = cu.device_array(n, dtype=np.float32)
    copies = {
        "h2d pageable": lambda: device.copy_to_device(pageable),
        "h2d pinned": lambda: device.copy_to_device(pinned),
        "d2h pageable": lambda: device.copy_to_host(pageable),
        "d2h pinned": lambda: device.copy_to_host(pinned),
    }
    out = {}
    start, end = cu.event(timing=True), cu.event(timing=True)
    for name, copy in copies.items():
        copy()  # warm-up
        cu.synchronize()
        best_ms = math.inf
        for _ in range(repeats):
            start.record()
            copy()
            end.record()
            end.synchronize()
            best_ms = min(best_ms, start.elapsed_time(end))
        out[name] = 4 * n / (best_ms / 1e3) / 1e9
    return out


# ---------------------------------------------------------------- thread maps


@lru_cache(maxsize=1)
def _grid_2d_owner_kernel() -> Any:
    """A kernel that records which block and thread covers each element of a 2-D launch (compiled on first use)."""
    _cuda()

    @cuda.jit
    def grid_2d_owner(block_id, thread_id):
        # one thread per element of the launched extent: x is the column, y the row (lab04's matmul)
        col, row = cuda.grid(2)
        if row < block_id.shape[0] and col < block_id.shape[1]:
            block_id[row, col] = cuda.blockIdx.y * cuda.gridDim.x + cuda.blockIdx.x
            thread_id[row, col] = cuda.threadIdx.y * cuda.blockDim.x + cuda.threadIdx.x

    return grid_2d_owner


def grid_stride_owners(n: int, blocks: int, threads: int) -> np.ndarray:
    """Global thread index that handles each of ``n`` elements in a grid-stride loop (week 5, lab04).

    With ``G = blocks * threads`` threads, thread ``g = blockIdx.x * blockDim.x + threadIdx.x``
    handles elements ``g, g + G, g + 2G, ...``, so element ``i`` belongs to thread ``i mod G``.
    Computed on the host from that rule (writing the loop is lab04's exercise). Returns an
    int64 array of length ``n``.
    """
    if n < 0 or blocks < 1 or threads < 1:
        raise ValueError("need n >= 0, blocks >= 1 and threads >= 1")
    return np.arange(int(n), dtype=np.int64) % (int(blocks) * int(threads))


def grid_2d_owners(shape: tuple[int, int], block: tuple[int, int]) -> dict[str, Any]:
    """Which block and thread of a 2-D launch covers each element of a ``shape`` matrix (week 5, lab04).

    The launch is the one lab04's matmul uses: ``block = (bx, by)`` threads,
    ``grid = (ceil(cols / bx), ceil(rows / by))`` blocks, x along columns, y along
    rows. A kernel records, over the whole launched extent (which is larger than
    the matrix when the shape is not a multiple of the block), the flat block
    index ``blockIdx.y * gridDim.x + blockIdx.x`` and the flat thread index
    ``threadIdx.y * blockDim.x + threadIdx.x`` of every thread. Returns a dict
    with ``block_id`` and ``thread_id`` (int64 arrays of the launched extent),
    ``shape``, ``block`` and ``grid``.
    """
    rows, cols = (int(v) for v in shape)
    bx, by = (int(v) for v in block)
    if rows < 1 or cols < 1 or bx < 1 or by < 1:
        raise ValueError("shape and block must be positive")
    grid = (math.ceil(cols / bx), math.ceil(rows / by))
    extent = (grid[1] * by, grid[0] * bx)
    kernel = _grid_2d_owner_kernel()
    block_id = cuda.to_device(np.full(extent, -1, dtype=np.int64))
    thread_id = cuda.to_device(np.full(extent, -1, dtype=np.int64))
    kernel[grid, (bx, by)](block_id, thread_id)
    return {
        "block_id": block_id.copy_to_host(),
        "thread_id": thread_id.copy_to_host(),
        "shape": (rows, cols),
        "block": (bx, by),
        "grid": grid,
    }


def plot_grid_stride_owners(owners: np.ndarray, threads: int, ax: Any = None, title: str | None = None) -> Any:
    """A strip of elements coloured by the block that handles them, labelled with the thread index; return the Axes.

    ``owners`` comes from :func:`grid_stride_owners`; ``threads`` is the block
    size used there (the block of thread ``g`` is ``g // threads``).
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    owners = np.asarray(owners)
    if ax is None:
        _fig, ax = plt.subplots(figsize=(min(0.32 * max(len(owners), 1) + 1, 16), 1.3))
    blocks = np.where(owners >= 0, owners // threads, -1)
    colours = ListedColormap(plt.get_cmap("tab10").colors)
    ax.imshow(blocks[None, :] % 10, cmap=colours, vmin=0, vmax=9, aspect="auto", alpha=0.55)
    for i, g in enumerate(owners):
        ax.text(i, 0, str(int(g)), ha="center", va="center", fontsize=7)
    ax.set_yticks([])
    step = max(1, len(owners) // 20)
    ax.set_xticks(range(0, len(owners), step))
    ax.set_xlabel("element index i (number: global thread that handles it; colour: its block)")
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def plot_grid_2d_owners(owners: dict[str, Any], ax: Any = None, title: str | None = None) -> Any:
    """The launched threads of :func:`grid_2d_owners` over the matrix they cover; return the Axes.

    Colour: the block; inside the matrix outline every thread owns one element;
    the hatched threads outside it exist (the grid is rounded up to whole blocks)
    but must do nothing: that is what a bound check is for.
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Rectangle

    block_id = np.asarray(owners["block_id"])
    rows, cols = owners["shape"]
    bx, by = owners["block"]
    gx, gy = owners["grid"]
    ey, ex = block_id.shape
    if ax is None:
        _fig, ax = plt.subplots(figsize=(min(0.2 * ex + 2, 14), min(0.2 * ey + 1.5, 10)))
    colours = ListedColormap(plt.get_cmap("tab10").colors)
    ax.imshow(block_id % 10, cmap=colours, vmin=0, vmax=9, alpha=0.55, interpolation="nearest")
    ax.add_patch(Rectangle((-0.5, -0.5), cols, rows, fill=False, lw=2.5, ec="black"))
    outside = np.zeros_like(block_id, dtype=bool)
    outside[rows:, :] = True
    outside[:, cols:] = True
    ys, xs = np.nonzero(outside)
    ax.scatter(xs, ys, marker="x", s=8, c="0.35", lw=0.6)
    for j in range(gy):
        for i in range(gx):
            ax.text(
                i * bx + (bx - 1) / 2,
                j * by + (by - 1) / 2,
                f"block\n({i}, {j})",
                ha="center",
                va="center",
                fontsize=8,
                fontweight="bold",
            )
    for x in range(1, gx):
        ax.axvline(x * bx - 0.5, color="white", lw=1.5)
    for y in range(1, gy):
        ax.axhline(y * by - 0.5, color="white", lw=1.5)
    ax.set_xlabel(f"column = blockIdx.x * {bx} + threadIdx.x")
    ax.set_ylabel(f"row = blockIdx.y * {by} + threadIdx.y")
    ax.set_title(
        title
        or f"{rows} x {cols} matrix (outlined), blocks of {bx} x {by} threads: "
        f"grid ({gx}, {gy}); x: threads with no element",
        fontsize=10,
    )
    return ax
