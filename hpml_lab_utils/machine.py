"""Facts about this machine, read from the operating system: CPU model, cores, SIMD width, clock, caches, memory.

The one place the course reads them (``hl.device.report``, the roofline's
array sizes and the lectures all ask this module). Week 1 computes this CPU's datasheet peak,

    peak FLOP/s = cores x clock (cycles/s) x FLOP/cycle per core,
    FLOP/cycle  = SIMD lanes x (2 with FMA, else 1) x vector units per core,
    SIMD lanes  = vector register bits / bits per number (32 for FP32, 64 for FP64),

from what the operating system says: the instruction-set flags in
``/proc/cpuinfo`` (``avx512f``, ``avx2``, ``avx``, ``fma``; ``asimd``/``sve`` on
ARM) and the clock from ``/sys/devices/system/cpu/cpu0/cpufreq`` or
``/proc/cpuinfo``. The number of vector (FMA) units per core is *not* in either
file: it is an assumption the notebook states and lets the reader change.

Example::

    facts = cpu_facts()
    per_cycle = flops_per_cycle(facts.datapath_bits, 32, units=2, fma=facts.fma)
    peak = theoretical_peak_flops(facts.physical_cores, facts.clock_ghz, per_cycle)   # roofline.py
"""

from __future__ import annotations

import os
import platform
import re
from dataclasses import dataclass, field
from pathlib import Path

CPUINFO = Path("/proc/cpuinfo")
CPU_SYSFS = Path("/sys/devices/system/cpu")
CPUFREQ = Path("/sys/devices/system/cpu/cpu0/cpufreq")
FALLBACK_LLC_BYTES = 32 << 20  # used when the cache size cannot be read


def cpu_model() -> str:
    """CPU model name from ``/proc/cpuinfo`` (Linux) or :mod:`platform`."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def _usable_cpus() -> list[int]:
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:  # no affinity mask (macOS, Windows): every CPU
        return list(range(os.cpu_count() or 1))


def usable_cores() -> int:
    """Cores this process may run on (affinity mask where the OS has one)."""
    return len(_usable_cpus())


def physical_cores(sysfs: Path = CPU_SYSFS) -> int:
    """Physical cores among the CPUs this process may use (week 1): distinct (package, core) pairs in sysfs.

    A hyper-threaded core shows up as 2 logical CPUs that share its vector units, so a peak FLOP/s counts it once.
    Falls back to :func:`usable_cores` where sysfs has no topology (macOS, Windows, some containers).
    """
    pairs = set()
    for cpu in _usable_cpus():
        topology = sysfs / f"cpu{cpu}" / "topology"
        try:
            pairs.add(
                (
                    topology.joinpath("physical_package_id").read_text().strip(),
                    topology.joinpath("core_id").read_text().strip(),
                )
            )
        except OSError:
            return usable_cores()
    return len(pairs) or usable_cores()


def _parse_cache_size(text: str) -> int:
    """``"107520K"`` -> bytes (sysfs writes K, M or G suffixes)."""
    text = text.strip().upper()
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    digits = text[:-1] if text[-1:] in "KMG" else text
    return int(digits) * scale


@dataclass(frozen=True)
class Cache:
    """One data or unified cache a CPU sees: its level, type (``"Data"`` or ``"Unified"``), size and line in
    bytes, and ``shared_cpus``, sysfs's list of the CPUs that share it (``"0-15"``)."""

    level: int
    kind: str
    size_bytes: int
    line_bytes: int
    shared_cpus: str


def _line_bytes(index: Path) -> int:
    try:
        return int((index / "coherency_line_size").read_text())
    except (OSError, ValueError):
        return 64  # every current x86-64 and Arm server core


def caches_of_cpu(cpu: int | None = None, sysfs: Path = CPU_SYSFS) -> list[Cache]:
    """The data and unified caches of CPU ``cpu`` (default: the first this process may use), innermost first,
    from ``/sys/devices/system/cpu/cpu<N>/cache/index*`` (Linux); [] when the system does not list them."""
    cpu = _usable_cpus()[0] if cpu is None else cpu
    found = []
    for index in sorted(Path(sysfs, f"cpu{cpu}", "cache").glob("index*")):
        try:
            kind = (index / "type").read_text().strip()
            if kind == "Instruction":
                continue
            try:
                shared = (index / "shared_cpu_list").read_text().strip()
            except OSError:
                shared = str(cpu)
            found.append(
                Cache(
                    level=int((index / "level").read_text()),
                    kind=kind,
                    size_bytes=_parse_cache_size((index / "size").read_text()),
                    line_bytes=_line_bytes(index),
                    shared_cpus=shared,
                )
            )
        except (OSError, ValueError):
            continue
    return sorted(found, key=lambda c: c.level)


def last_level_cache_bytes() -> int:
    """Total last-level cache of the usable CPUs in bytes (week 2).

    Sums the distinct highest-level data/unified caches of the usable CPUs (two sockets -> two L3s), then
    tries ``os.sysconf``; falls back to 32 MiB.
    """
    caches = {(c.level, c.shared_cpus): c.size_bytes for cpu in _usable_cpus() for c in caches_of_cpu(cpu)}
    if caches:
        top = max(level for level, _ in caches)
        total = sum(size for (level, _), size in caches.items() if level == top)
        if total > 0:
            return total
    for name in ("SC_LEVEL3_CACHE_SIZE", "SC_LEVEL2_CACHE_SIZE"):
        try:
            size = int(os.sysconf(name))
        except (ValueError, OSError, AttributeError):
            continue
        if size > 0:
            return size
    return FALLBACK_LLC_BYTES


def data_cache_bytes() -> dict[int, int]:
    """{level: bytes} of the data (or unified) caches one core sees (week 6, lab11: does a tile fit in L1?).
    An L3 shared by several cores is reported whole; {} when unknown."""
    return {c.level: c.size_bytes for c in caches_of_cpu()}


def available_memory_bytes() -> int | None:
    """``MemAvailable`` from ``/proc/meminfo``, else free pages from ``os.sysconf``; None if unknown."""
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


@dataclass
class CpuFacts:
    """What week 1 reads about this CPU.

    ``cores``: logical CPUs this process may use; ``physical_cores``: the cores behind them
    (hyper-threads counted once). ``simd``: the widest vector extension found (``"AVX-512"``,
    ``"AVX2"``, ``"AVX"``, ``"SSE2"``, ``"NEON (ASIMD)"``, ``"SVE"`` or ``"unknown"``);
    ``vector_bits``: its register width in bits; ``datapath_bits``: the width the FMA units
    compute per cycle (smaller than the registers on AMD Zen 4, which runs AVX-512 on 256-bit
    units); ``fma``: fused multiply-add available; ``clock_ghz``:
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
    physical_cores: int = 0
    datapath_bits: int = 0


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


def fma_datapath_bits(vector_bits: int, vendor: str, family: int | None) -> tuple[int, str | None]:
    """(bits an FMA unit computes per cycle, a note or None) for registers of ``vector_bits`` (week 1).

    Equal to the register width, except on AMD family 0x19 (Zen 3 and Zen 4): Zen 4 executes each AVX-512
    instruction as two 256-bit halves, so its 512-bit registers do not double its FLOP per cycle. (Zen 5, family
    0x1A, has full 512-bit units in its server and desktop parts.)
    """
    if vendor == "AuthenticAMD" and family == 0x19 and vector_bits > 256:
        return 256, "AMD Zen 4 runs AVX-512 on 256-bit units: the peak counts 256-bit FMAs"
    return vector_bits, None


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
    family_text = info.get("cpu family", "")
    datapath, datapath_note = fma_datapath_bits(
        bits, info.get("vendor_id", ""), int(family_text) if family_text.isdigit() else None
    )
    if datapath_note:
        notes.append(datapath_note)
    cores, physical = usable_cores(), physical_cores()
    if physical < cores:
        notes.append(f"{cores} logical CPUs on {physical} physical cores (hyper-threading): the peak counts cores")
    model = (
        info.get("model name") or info.get("cpu model") or platform.processor() or platform.machine() or "unknown CPU"
    )
    return CpuFacts(
        model=model,
        cores=cores,
        flags=flags,
        simd=simd,
        vector_bits=bits,
        fma=fma,
        clock_ghz=ghz,
        clock_source=source,
        clocks=clocks,
        notes=notes,
        physical_cores=physical,
        datapath_bits=datapath,
    )
