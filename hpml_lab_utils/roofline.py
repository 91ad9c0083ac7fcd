"""The roofline model with measured ceilings (week 2, lab01).

A kernel that does ``F`` FLOPs and moves ``Q`` bytes to or from memory has
arithmetic intensity ``AI = F / Q`` (FLOP/byte). On a machine with peak compute
``P`` (FLOP/s) and memory bandwidth ``B`` (bytes/s) it can reach at most

    attainable(AI) = min(P, AI * B)        (FLOP/s)

Left of the ridge point ``AI = P / B`` a kernel is memory-bound, right of it
compute-bound. Here the ceilings are measured, never typed in:

* compute: a large GEMM (``2 n^3`` FLOPs) with numpy on the CPU, torch on a GPU;
* bandwidth: the STREAM triad ``a[i] = b[i] + s * c[i]`` as one parallel pass
  (Numba ``prange`` on the CPU, ``torch.add(..., out=)`` on a GPU), counted as
  3 arrays x 8 bytes per element, with arrays at least 4x the last-level cache.

:func:`measure_peaks` caches the result as JSON per machine, so a notebook
measures once. Units in data are SI base units (FLOP/s, bytes/s); the plot
shows GFLOP/s and GB/s.

Example::

    peaks = measure_peaks()                      # cached after the first run
    pt = KernelPoint("axpy", flops=2 * n, nbytes=3 * 4 * n, seconds=t)
    ax = plot_roofline(peaks, [pt])
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import socket
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .config import fast_mode, pick
from .device import gpu_name, has_cuda
from .machine import available_memory_bytes, cpu_model, last_level_cache_bytes, usable_cores
from .timing import quiet_bench

MiB = 1 << 20
GiB = 1 << 30
ROOF_SLACK = 1.05  # a point more than 5% above its roof is flagged
CACHE_SCHEMA = 1  # bump when the JSON layout changes; older files are ignored
TRIAD_SCALAR = 3.0

_DTYPE_LABELS = {"float64": "FP64", "float32": "FP32", "float16": "FP16", "bfloat16": "BF16"}
_CPU_DTYPES = ("float32", "float64")
_GPU_DTYPES = ("float32", "float64", "float16", "bfloat16")

_warned_unwritable = False  # warn once per process about an unwritable cache folder


class AboveRoofWarning(UserWarning):
    """A kernel point lies above its roof: almost always a FLOP, byte or timing counting error."""


class RooflineCacheWarning(UserWarning):
    """The peaks cache folder cannot be written; peaks will be measured again next time."""


# --------------------------------------------------------------------------- data


@dataclass
class Peaks:
    """Measured ceilings of one device (week 2, lab01).

    ``flops`` maps a dtype name (``"float32"``, ``"float64"``, ...) to peak
    FLOP/s; ``bandwidth`` is memory bandwidth in bytes/s; ``sources`` says how
    each ceiling was measured (keys: the dtype names and ``"bandwidth"``);
    ``machine`` identifies the machine (see :func:`machine_key`);
    ``measured_at`` is an ISO 8601 time; ``fast`` is True when measured with
    ``HPML_FAST`` sizes.
    """

    device: str
    flops: dict[str, float]
    bandwidth: float
    sources: dict[str, str]
    machine: str
    measured_at: str
    fast: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of JSON types (see :meth:`from_dict`)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Peaks:
        """Inverse of :meth:`to_dict`; raises ``KeyError``/``ValueError``/``TypeError`` on a malformed dict."""
        flops = {str(k): float(v) for k, v in dict(data["flops"]).items()}
        bandwidth = float(data["bandwidth"])
        if not flops or not all(math.isfinite(v) and v > 0 for v in [*flops.values(), bandwidth]):
            raise ValueError("peaks must be positive finite numbers")
        return cls(
            device=str(data["device"]),
            flops=flops,
            bandwidth=bandwidth,
            sources={str(k): str(v) for k, v in dict(data["sources"]).items()},
            machine=str(data["machine"]),
            measured_at=str(data["measured_at"]),
            fast=bool(data.get("fast", False)),
        )


@dataclass
class KernelPoint:
    """One measured kernel on the roofline (week 2, lab01).

    ``flops``: FLOPs the kernel does (count them from the algorithm, not the
    hardware); ``nbytes``: bytes it must move to/from memory at least;
    ``seconds``: its run time.
    """

    name: str
    flops: float
    nbytes: float
    seconds: float

    def __post_init__(self) -> None:
        for field_name in ("flops", "nbytes", "seconds"):
            value = getattr(self, field_name)
            if not (math.isfinite(value) and value > 0):
                raise ValueError(
                    f"KernelPoint {self.name!r}: {field_name} must be a positive finite number, got {value!r}"
                )

    @property
    def ai(self) -> float:
        """Arithmetic intensity ``flops / nbytes`` in FLOP/byte."""
        return self.flops / self.nbytes

    @property
    def flops_per_s(self) -> float:
        """Achieved performance ``flops / seconds`` in FLOP/s."""
        return self.flops / self.seconds


# ----------------------------------------------------------------------- formulas


def theoretical_peak_flops(cores: int, ghz: float, flops_per_cycle: float) -> float:
    """Datasheet peak ``cores * ghz * 1e9 * flops_per_cycle`` in FLOP/s (week 2).

    ``flops_per_cycle`` is per core, e.g. 2 AVX-512 FMA units x 16 FP32 lanes x
    2 FLOP per FMA = 64. A measured GEMM usually reaches 60-90% of this.
    """
    return float(cores) * float(ghz) * 1e9 * float(flops_per_cycle)


# The bound and the ridge point are private: they are what lab01 asks students to write
# (attainable_gflops, is_memory_bound), and the plots below need them.
def _attainable(ai: Any, peak_flops: float, peak_bandwidth: float) -> Any:
    """Roofline bound ``min(peak_flops, ai * peak_bandwidth)`` in FLOP/s for the plots.

    ``ai`` in FLOP/byte (a float or a numpy array), ``peak_flops`` in FLOP/s,
    ``peak_bandwidth`` in bytes/s. Returns a float for a scalar ``ai``, else an array.
    """
    bound = np.minimum(float(peak_flops), np.asarray(ai, dtype=float) * float(peak_bandwidth))
    return float(bound) if bound.ndim == 0 else bound


def _ridge_point(peak_flops: float, peak_bandwidth: float) -> float:
    """Arithmetic intensity where the roofs meet: ``peak_flops / peak_bandwidth`` in FLOP/byte, for the plots."""
    return float(peak_flops) / float(peak_bandwidth)


# ------------------------------------------------------------------ machine facts


def machine_key() -> str:
    """Identifies this machine for the peaks cache: hostname, CPU model, usable cores, GPU name."""
    return f"{socket.gethostname()} | {cpu_model()} | {usable_cores()} cores | {gpu_name() or 'no GPU'}"


def _normalise_device(device: str) -> str:
    device = str(device).lower()
    if device.startswith("cuda"):
        return "cuda"
    if device == "cpu":
        return "cpu"
    raise ValueError(f"device must be 'cpu' or 'cuda', got {device!r}")


def _torch_on_gpu() -> Any:
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
    device = _normalise_device(device)
    if device == "cpu":
        if dtype not in _CPU_DTYPES:
            raise ValueError(f"on the CPU the GEMM peak is measured for {_CPU_DTYPES}, not {dtype!r}")
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
        if dtype not in _GPU_DTYPES:
            raise ValueError(f"on the GPU the GEMM peak is measured for {_GPU_DTYPES}, not {dtype!r}")
        torch = _torch_on_gpu()
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
    if _normalise_device(device) == "cuda":
        torch = _torch_on_gpu()
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
    device = _normalise_device(device)
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
        torch = _torch_on_gpu()
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


# -------------------------------------------------------------------------- cache


def cache_dir() -> Path:
    """Folder of the peaks cache: ``$HPML_CACHE_DIR``, else ``$XDG_CACHE_HOME/hpml_lab_utils``, else ``~/.cache/hpml_lab_utils``."""
    explicit = os.environ.get("HPML_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "hpml_lab_utils"


def peaks_cache_path(device: str = "cpu", machine: str | None = None) -> Path:
    """JSON file caching the peaks of ``device`` on ``machine`` (default: this one)."""
    machine = machine_key() if machine is None else machine
    digest = hashlib.sha256(machine.encode("utf-8")).hexdigest()[:16]
    return cache_dir() / f"peaks-{_normalise_device(device)}-{digest}.json"


def _load_cached(path: Path, device: str, machine: str) -> Peaks | None:
    """The cached peaks if the file is valid, of this machine and device, and not a fast-mode
    measurement read in default mode; else None."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("schema") != CACHE_SCHEMA or data.get("device_kind") != device:
            return None
        peaks = Peaks.from_dict(data["peaks"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if peaks.machine != machine:
        return None
    if peaks.fast and not fast_mode():
        return None  # full-size measurement wanted: fast-mode sizes under-estimate peaks
    return peaks


def _save_cached(path: Path, device: str, peaks: Peaks) -> None:
    """Write atomically; warn once per process if the folder is not writable."""
    global _warned_unwritable
    payload = {"schema": CACHE_SCHEMA, "device_kind": device, "peaks": peaks.to_dict()}
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(payload, indent=2), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as err:
        try:
            tmp.unlink()
        except OSError:
            pass
        if not _warned_unwritable:
            _warned_unwritable = True
            warnings.warn(
                f"could not write the roofline peaks cache in {path.parent} ({err}); peaks will be "
                "measured again next time. Set HPML_CACHE_DIR to a writable folder.",
                RooflineCacheWarning,
                stacklevel=3,
            )


def measure_peaks(device: str = "cpu", use_cache: bool = True, refresh: bool = False, *, verbose: bool = True) -> Peaks:
    """Measured FLOP/s and bandwidth ceilings of ``device`` (week 2, lab01).

    CPU: float32 and float64 GEMM (:func:`measure_gemm_flops`) and the triad
    (:func:`measure_bandwidth`); ``"cuda"`` adds float16 and bfloat16. With
    ``use_cache`` the result is read from / written to
    :func:`peaks_cache_path` (one JSON file per machine and device; an entry of
    another machine, or a fast-mode entry outside fast mode, is never used);
    ``refresh=True`` measures again and overwrites. ``verbose`` shows a
    progress bar and says where the cache is.
    """
    device = _normalise_device(device)
    machine = machine_key()
    path = peaks_cache_path(device, machine)
    if use_cache and not refresh:
        cached = _load_cached(path, device, machine)
        if cached is not None:
            if verbose:
                print(f"roofline peaks from cache {path} (measured {cached.measured_at}); refresh=True measures again")
            return cached

    dtypes = _CPU_DTYPES if device == "cpu" else _GPU_DTYPES
    steps: list[tuple[str, Callable[[], tuple[float, str]]]] = [
        (dtype, lambda dtype=dtype: measure_gemm_flops(dtype, device)) for dtype in dtypes
    ]
    steps.append(("bandwidth", lambda: measure_bandwidth(device)))
    from tqdm.auto import tqdm

    results: dict[str, tuple[float, str]] = {}
    with tqdm(steps, desc="measuring peaks", disable=not verbose, file=sys.stdout) as bar:
        for name, step in bar:
            bar.set_postfix_str(name)
            results[name] = step()

    if device == "cpu":
        description = f"CPU: {cpu_model()} ({usable_cores()} cores)"
    else:
        description = f"GPU: {gpu_name()}"
    bandwidth, bandwidth_source = results.pop("bandwidth")
    peaks = Peaks(
        device=description,
        flops={name: value for name, (value, _src) in results.items()},
        bandwidth=bandwidth,
        sources={**{name: src for name, (_v, src) in results.items()}, "bandwidth": bandwidth_source},
        machine=machine,
        measured_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        fast=fast_mode(),
    )
    if use_cache:
        _save_cached(path, device, peaks)
    return peaks


# --------------------------------------------------------------------------- plot


def format_flops(flops_per_s: float) -> str:
    """``1.2e12`` -> ``"1.2 TFLOP/s"``, ``1.81e11`` -> ``"181 GFLOP/s"`` (3 significant digits)."""
    return _format_rate(flops_per_s, "FLOP/s")


def format_bandwidth(bytes_per_s: float) -> str:
    """``2.1e10`` -> ``"21 GB/s"``, ``3.35e12`` -> ``"3.35 TB/s"`` (3 significant digits)."""
    return _format_rate(bytes_per_s, "B/s")


def _format_rate(value: float, unit: str) -> str:
    rounded = float(f"{value:.3g}")
    prefix, scale = ("T", 1e12) if rounded >= 1e12 else ("G", 1e9)
    return f"{float(f'{rounded / scale:.3g}'):g} {prefix}{unit}"


def _source_tag(source: str) -> str:
    """``"GEMM 2048^3 numpy ..."`` -> ``"GEMM"``: the label's ``[...]`` part."""
    return source.split()[0] if source.strip() else "?"


def plot_roofline(
    peaks: Peaks,
    points: Sequence[KernelPoint] = (),
    ax: Any = None,
    dtype: str = "float32",
) -> Any:
    """Draw the roofline of ``peaks`` with ``points`` on log-log axes; return the Axes (week 2, lab01).

    x: arithmetic intensity (FLOP/byte); y: GFLOP/s. Every ceiling is drawn
    and labelled with its value and source ("DRAM 21 GB/s [triad]",
    "FP32 181 GFLOP/s [GEMM]"); ``dtype`` picks the compute roof that the
    ridge point and the points are checked against. A point more than 5%
    above ``_attainable(ai)`` gets a red cross and an :class:`AboveRoofWarning`:
    its FLOPs, bytes or time are almost certainly miscounted.
    """
    if dtype not in peaks.flops:
        raise ValueError(f"no {dtype!r} ceiling in these peaks; measured: {sorted(peaks.flops)}")
    import matplotlib.pyplot as plt

    if ax is None:
        _fig, ax = plt.subplots(figsize=(8, 5.5))
    points = list(points)
    bandwidth = peaks.bandwidth
    roof = peaks.flops[dtype]
    ridge = _ridge_point(roof, bandwidth)
    top = max(peaks.flops.values())

    ais = [p.ai for p in points]
    x_lo = 10 ** math.floor(math.log10(min([ridge / 100, *[a / 3 for a in ais]])))
    x_hi = 10 ** math.ceil(math.log10(max([ridge * 30, *[a * 3 for a in ais]])))
    perf = [p.flops_per_s for p in points]
    y_lo = 10 ** math.floor(
        math.log10(min([x_lo * bandwidth, min(peaks.flops.values()) / 100, *[f / 3 for f in perf]]) / 1e9)
    )
    y_hi = 10 ** math.ceil(math.log10(max([top * 3, *[f * 3 for f in perf]]) / 1e9))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, y_hi)

    # memory ceiling: the diagonal up to the highest compute ceiling
    x_mem = np.array([x_lo, top / bandwidth])
    ax.plot(x_mem, x_mem * bandwidth / 1e9, color="C0", lw=2)
    mem_label = f"DRAM {format_bandwidth(bandwidth)} [{_source_tag(peaks.sources.get('bandwidth', ''))}]"
    x_text = x_lo * 1.5  # near the left end, where kernel points rarely sit
    p0, p1 = ax.transData.transform([(x_text, x_text * bandwidth / 1e9), (x_text * 10, x_text * 10 * bandwidth / 1e9)])
    angle = math.degrees(math.atan2(p1[1] - p0[1], p1[0] - p0[0]))
    ax.annotate(
        mem_label,
        (x_text, x_text * bandwidth / 1e9),
        xytext=(0, 5),
        textcoords="offset points",
        rotation=angle,
        rotation_mode="anchor",
        ha="left",
        va="bottom",
        color="C0",
        fontsize=9,
    )

    # compute ceilings, highest first; the chosen dtype solid, the others dashed
    for name, value in sorted(peaks.flops.items(), key=lambda kv: -kv[1]):
        chosen = name == dtype
        ax.plot(
            [value / bandwidth, x_hi],
            [value / 1e9, value / 1e9],
            color="C1" if chosen else "0.45",
            lw=2 if chosen else 1.2,
            ls="-" if chosen else "--",
        )
        label = f"{_DTYPE_LABELS.get(name, name)} {format_flops(value)} [{_source_tag(peaks.sources.get(name, ''))}]"
        if chosen:  # above its line at the right end
            where, offset, align = (x_hi, value / 1e9), (-4, 3), {"ha": "right", "va": "bottom"}
        else:  # below its line, where it leaves the diagonal, away from the chosen roof's label
            where, offset, align = (value / bandwidth, value / 1e9), (6, -3), {"ha": "left", "va": "top"}
        ax.annotate(
            label,
            where,
            xytext=offset,
            textcoords="offset points",
            color="C1" if chosen else "0.3",
            fontsize=9,
            **align,
        )

    # ridge point of the chosen dtype
    ax.plot([ridge], [roof / 1e9], marker="o", color="C1", ms=7, zorder=3)
    ax.vlines(ridge, y_lo, roof / 1e9, colors="C1", linestyles=":", lw=1)
    ax.annotate(
        f"ridge {ridge:.3g} FLOP/byte",
        (ridge, y_lo),
        xytext=(4, 4),
        textcoords="offset points",
        ha="left",
        va="bottom",
        color="C1",
        fontsize=9,
    )

    # kernels; labels of points in the right third go to their left, to stay inside the axes
    for point in points:
        bound = _attainable(point.ai, roof, bandwidth)
        achieved = point.flops_per_s
        x, y = point.ai, achieved / 1e9
        on_right = math.log(x / x_lo) > 0.65 * math.log(x_hi / x_lo)
        near_roof = bound / 2 < achieved <= ROOF_SLACK * bound  # label below, off the roof line
        label_at = {
            "xytext": (-7 if on_right else 7, -5 if near_roof else 5),
            "ha": "right" if on_right else "left",
            "va": "top" if near_roof else "bottom",
        }
        if achieved > ROOF_SLACK * bound:
            in_cache_hint = (
                "; or its data fit in cache, so DRAM is not its limit (use arrays several times the last-level cache)"
                if point.ai < ridge
                else ""
            )
            warnings.warn(
                f"kernel {point.name!r} reaches {format_flops(achieved)} at {point.ai:.3g} FLOP/byte, above the "
                f"{dtype} roof of {format_flops(bound)}: this is likely a counting error (FLOPs over-counted, "
                f"bytes under-counted, or a time that missed a synchronisation){in_cache_hint}",
                AboveRoofWarning,
                stacklevel=2,
            )
            ax.plot([x], [y], marker="X", color="red", ms=11, ls="none", zorder=4)
            ax.annotate(
                f"{point.name} (above roof: counting error?)",
                (x, y),
                textcoords="offset points",
                color="red",
                fontsize=9,
                fontweight="bold",
                **label_at,
            )
        else:
            ax.plot([x], [y], marker="o", color="C2", ms=7, ls="none", zorder=4)
            ax.annotate(
                f"{point.name} ({format_flops(achieved)}, {achieved / bound:.0%} of roof)",
                (x, y),
                textcoords="offset points",
                fontsize=9,
                **label_at,
            )

    ax.set_xlabel("arithmetic intensity (FLOP/byte)")
    ax.set_ylabel("performance (GFLOP/s)")
    title = f"Roofline: {peaks.device}"
    if peaks.fast:
        title += " (fast-mode sizes)"
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="major", ls=":", lw=0.6, alpha=0.7)
    return ax


def explore(peaks: Peaks, points: Sequence[KernelPoint] = (), dtype: str = "float32") -> Any:
    """An interactive roofline (ipywidgets): pick the compute roof, slide an arithmetic intensity.

    The plot (:func:`plot_roofline` with ``points``) redraws on every change
    and marks the slider's intensity I (FLOP/byte) at its ceiling,
    attainable = min(peak FLOP/s, I x bandwidth). Returns the widget; display
    it as a cell's last expression.
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    names = sorted(peaks.flops, key=lambda name: -peaks.flops[name])
    roof_menu = widgets.Dropdown(options=names, value=dtype if dtype in names else names[0], description="roof")
    ridge = _ridge_point(peaks.flops[roof_menu.value], peaks.bandwidth)
    intensity = widgets.FloatLogSlider(
        value=ridge / 4,
        base=10,
        min=math.log10(ridge) - 2.5,
        max=math.log10(ridge) + 1.5,
        step=0.05,
        description="FLOP/byte",
        readout_format=".3g",
        continuous_update=False,
    )
    out = widgets.Output()

    def draw(_change: Any = None) -> None:
        roof = peaks.flops[roof_menu.value]
        x = intensity.value
        y = _attainable(x, roof, peaks.bandwidth)
        with out:
            out.clear_output(wait=True)
            ax = plot_roofline(peaks, points, dtype=roof_menu.value)
            ax.plot([x], [y / 1e9], marker="D", color="C3", ms=9, ls="none", zorder=5)
            ax.annotate(
                f"I = {x:.3g} FLOP/byte: at most {format_flops(y)}",
                (x, y / 1e9),
                xytext=(8, -14),
                textcoords="offset points",
                color="C3",
                fontsize=9,
                fontweight="bold",
            )
            plt.show()
        box.last_drawn = (roof_menu.value, x, y)

    box = widgets.VBox([widgets.HBox([roof_menu, intensity]), out])
    roof_menu.observe(draw, "value")
    intensity.observe(draw, "value")
    draw()
    return box
