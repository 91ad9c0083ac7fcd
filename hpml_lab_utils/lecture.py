"""Helpers of the teaching notebooks (``course/weekNN_*.ipynb``): facts read from this machine.

Week 1 computes this CPU's datasheet peak,

    peak FLOP/s = cores x clock (cycles/s) x FLOP/cycle per core,
    FLOP/cycle  = SIMD lanes x (2 with FMA, else 1) x vector units per core,
    SIMD lanes  = vector register bits / bits per number (32 for FP32, 64 for FP64),

from what the operating system says: the instruction-set flags in
``/proc/cpuinfo`` (``avx512f``, ``avx2``, ``avx``, ``fma``; ``asimd``/``sve`` on
ARM) and the clock from ``/sys/devices/system/cpu/cpu0/cpufreq`` or
``/proc/cpuinfo``. The number of vector (FMA) units per core is *not* in either
file: it is an assumption the notebook states and lets the reader change.

:func:`quiet_bench` (from :mod:`hpml_lab_utils.timing`) is `bench` without its noise warning,
for the lectures' peak measurements (a peak is the best run; noise only slows
the others).

Example::

    facts = cpu_facts()
    per_cycle = flops_per_cycle(facts.vector_bits, 32, units=2, fma=facts.fma)
    peak = theoretical_peak_flops(facts.cores, facts.clock_ghz, per_cycle)   # roofline.py
"""

from __future__ import annotations

import platform
import re
from dataclasses import dataclass, field
from pathlib import Path

from .device import usable_cores
from .timing import quiet_bench  # noqa: F401 (lecture.quiet_bench: the notebooks' name for it)

CPUINFO = Path("/proc/cpuinfo")
CPUFREQ = Path("/sys/devices/system/cpu/cpu0/cpufreq")


@dataclass
class CpuFacts:
    """What week 1 reads about this CPU.

    ``simd``: the widest vector extension found (``"AVX-512"``, ``"AVX2"``, ``"AVX"``,
    ``"SSE2"``, ``"NEON (ASIMD)"``, ``"SVE"`` or ``"unknown"``); ``vector_bits``: its
    register width in bits; ``fma``: fused multiply-add available; ``clock_ghz``:
    the clock the peak formula uses (``None`` when nothing could be read), and
    ``clock_source`` says where it came from; ``clocks`` holds every clock found
    (name -> GHz); ``notes`` lists the assumptions made while reading.
    """

    model: str
    cores: int
    flags: frozenset[str] = field(repr=False)
    simd: str
    vector_bits: int
    fma: bool
    clock_ghz: float | None
    clock_source: str
    clocks: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def parse_cpuinfo(text: str) -> dict[str, str]:
    """The ``key: value`` pairs of the first processor block of ``/proc/cpuinfo`` text (keys lower-cased)."""
    info: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            if info:
                break  # end of the first processor block
            continue
        if ":" in line:
            key, value = line.split(":", 1)
            info.setdefault(key.strip().lower(), value.strip())
    return info


def simd_of(flags: set[str] | frozenset[str]) -> tuple[str, int, bool]:
    """``(name, vector_bits, fma)`` of the widest vector extension in ``flags`` (week 1).

    x86: ``avx512f`` 512 bits, ``avx2``/``avx`` 256, ``sse2`` 128; FMA from the ``fma``
    flag (AVX-512 always has FMA). ARM: ``sve`` (width not in the flags: 128 bits is
    assumed, the minimum), else ``asimd`` 128 bits; both have FMA.
    """
    if "avx512f" in flags:
        return "AVX-512", 512, True
    if "avx2" in flags:
        return "AVX2", 256, "fma" in flags
    if "avx" in flags:
        return "AVX", 256, "fma" in flags
    if "sve" in flags:
        return "SVE", 128, True
    if "asimd" in flags:
        return "NEON (ASIMD)", 128, True
    if "sse2" in flags:
        return "SSE2", 128, False
    return "unknown", 128, False


def flops_per_cycle(vector_bits: int, dtype_bits: int, units: int = 2, fma: bool = True) -> float:
    """Peak FLOP per cycle of one core (week 1).

    ``lanes = vector_bits // dtype_bits`` numbers per vector instruction; an FMA
    (``a*b + c``) counts 2 FLOP per lane; ``units`` vector pipes issue one each per
    cycle. Example: AVX-512 with 2 FMA units in FP64: 8 lanes x 2 x 2 = 32.
    """
    if vector_bits <= 0 or dtype_bits <= 0 or units <= 0:
        raise ValueError("vector_bits, dtype_bits and units must be positive")
    lanes = max(vector_bits // dtype_bits, 1)
    return float(lanes * (2 if fma else 1) * units)


def _read_khz(path: Path) -> float | None:
    try:
        value = float(path.read_text().strip())
    except (OSError, ValueError):
        return None
    return value / 1e6 if value > 0 else None  # kHz -> GHz


def read_clocks(cpuinfo: dict[str, str], cpufreq: Path = CPUFREQ) -> dict[str, float]:
    """Every clock this machine states, in GHz, most trustworthy for a peak first (week 1).

    Keys: ``"max (cpuinfo_max_freq)"`` and ``"base (base_frequency)"`` from sysfs,
    ``"nominal (model name)"`` from a ``@ 2.10GHz`` in the model name,
    ``"current (cpu MHz)"`` from ``/proc/cpuinfo`` (the clock at the moment of
    reading; virtual machines often report the nominal clock there).
    """
    clocks: dict[str, float] = {}
    for name, file in (("max (cpuinfo_max_freq)", "cpuinfo_max_freq"), ("base (base_frequency)", "base_frequency")):
        ghz = _read_khz(cpufreq / file)
        if ghz:
            clocks[name] = ghz
    match = re.search(r"@\s*([0-9.]+)\s*GHz", cpuinfo.get("model name", ""), re.IGNORECASE)
    if match:
        clocks["nominal (model name)"] = float(match.group(1))
    try:
        mhz = float(cpuinfo.get("cpu mhz", ""))
        if mhz > 0:
            clocks["current (cpu MHz)"] = mhz / 1e3
    except ValueError:
        pass
    return clocks


def cpu_facts(cpuinfo_path: Path = CPUINFO, cpufreq: Path = CPUFREQ) -> CpuFacts:
    """Read this CPU's model, usable cores, SIMD width, FMA and clock (week 1).

    The clock for the peak formula is the first of :func:`read_clocks` (the
    maximum turbo clock when sysfs gives one); without any, ``clock_ghz`` is
    ``None`` and a note says so. On systems without ``/proc/cpuinfo`` (macOS,
    Windows) the SIMD width is unknown and 128 bits is assumed.
    """
    notes: list[str] = []
    try:
        info = parse_cpuinfo(cpuinfo_path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        info = {}
        notes.append(f"{cpuinfo_path} not readable: SIMD width and clock unknown")
    flags = frozenset((info.get("flags") or info.get("features") or "").split())
    simd, bits, fma = simd_of(flags)
    if simd == "SVE":
        notes.append("SVE vector length is not in the flags: 128 bits assumed (A64FX has 512)")
    if simd == "unknown":
        notes.append("no SIMD flags found: 128-bit vectors without FMA assumed")
    clocks = read_clocks(info, cpufreq)
    if clocks:
        source, ghz = next(iter(clocks.items()))
    else:
        source, ghz = "not found", None
        notes.append("no clock found in sysfs or /proc/cpuinfo: type one in")
    model = info.get("model name") or info.get("cpu model") or platform.processor() or platform.machine() or "unknown CPU"
    return CpuFacts(
        model=model, cores=usable_cores(), flags=flags, simd=simd, vector_bits=bits, fma=fma,
        clock_ghz=ghz, clock_source=source, clocks=clocks, notes=notes,
    )


