"""The roofline model with measured ceilings (week 2, lab01).

A kernel that does ``F`` FLOPs and moves ``Q`` bytes to or from memory has
arithmetic intensity ``AI = F / Q`` (FLOP/byte). On a machine with peak compute
``P`` (FLOP/s) and memory bandwidth ``B`` (bytes/s) it can reach at most

    attainable(AI) = min(P, AI * B)        (FLOP/s)

Left of the ridge point ``AI = P / B`` a kernel is memory-bound, right of it
compute-bound. Here the ceilings are measured, never typed in
(:mod:`hpml_lab_utils.ceilings`: a large GEMM, the STREAM triad), and
:func:`measure_peaks` caches them as JSON per machine, so a notebook measures
once. Units in data are SI base units (FLOP/s, bytes/s); the plot
(:mod:`hpml_lab_utils.roofline_plot`) shows GFLOP/s and GB/s.

Example::

    peaks = measure_peaks()                      # cached after the first run
    pt = KernelPoint("axpy", flops=2 * n, nbytes=3 * 4 * n, seconds=t)
    ax = plot_roofline(peaks, [pt])              # from hpml_lab_utils.roofline_plot (or hl.plot_roofline)
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
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from .ceilings import CPU_DTYPES, GPU_DTYPES, measure_bandwidth, measure_gemm_flops, normalise_device
from .config import fast_mode
from .device import gpu_name
from .machine import cpu_model, usable_cores

ROOF_SLACK = 1.05  # a point more than 5% above its roof is flagged
CACHE_SCHEMA = 1  # bump when the JSON layout changes; older files are ignored

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
    return cache_dir() / f"peaks-{normalise_device(device)}-{digest}.json"


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
    device = normalise_device(device)
    machine = machine_key()
    path = peaks_cache_path(device, machine)
    if use_cache and not refresh:
        cached = _load_cached(path, device, machine)
        if cached is not None:
            if verbose:
                print(f"roofline peaks from cache {path} (measured {cached.measured_at}); refresh=True measures again")
            return cached

    dtypes = CPU_DTYPES if device == "cpu" else GPU_DTYPES
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
