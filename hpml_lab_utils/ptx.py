"""Real PTX, its registers and shared memory, and the occupancy they allow, all without a GPU.

- :func:`compile_ptx` compiles a ``@cuda.jit`` kernel to PTX with numba-cuda's compiler (NVIDIA's NVVM) in a
  fresh Python with the CUDA simulator off: without a GPU the simulator replaces ``numba.cuda`` in this process.
- :func:`ptxas_usage` assembles the PTX for one architecture with ``ptxas -v`` and reads what it reports.
- :func:`occupancy` is the CUDA occupancy calculator: resident warps per SM / the SM's maximum.

The compiler needs NVIDIA's NVVM and NVRTC libraries and the ``ptxas`` program: the CUDA toolkit's, or NVIDIA's
PyPI wheels (the project's ``ptx`` extra: ``cuda-toolkit[nvcc,nvrtc,nvvm]``, Linux x86-64). :func:`toolchain` says
which is missing.
"""

from __future__ import annotations

import inspect
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class SmLimits:
    """Per streaming multiprocessor: warps and blocks resident at once, shared memory for all blocks (KiB),
    shared memory allocated in units of (bytes), what the CUDA runtime reserves per block (bytes), and the
    most shared memory one block may use once it opts in (KiB; without opting in, 48 KiB)."""

    max_warps: int
    max_blocks: int
    shared_kib: int
    shared_unit: int
    reserved_shared: int
    shared_per_block_kib: int


# From the CUDA C++ Programming Guide's "Technical Specifications per Compute Capability" and NVIDIA's
# occupancy calculator (cuda_occupancy.h, which tests/hpml_lab_utils/test_occupancy_nvidia.py compiles and
# compares with occupancy() below). Every one of these has 65,536 32-bit registers per SM in 4 sub-partitions
# (one per warp scheduler) of 16,384, allocated per warp in units of 256.
SM_LIMITS: dict[tuple[int, int], SmLimits] = {
    (7, 0): SmLimits(64, 32, shared_kib=96, shared_unit=256, reserved_shared=0, shared_per_block_kib=96),  # V100
    (7, 5): SmLimits(32, 16, shared_kib=64, shared_unit=256, reserved_shared=0, shared_per_block_kib=64),  # T4
    (8, 0): SmLimits(64, 32, shared_kib=164, shared_unit=128, reserved_shared=1024, shared_per_block_kib=163),  # A100
    (8, 6): SmLimits(48, 16, shared_kib=100, shared_unit=128, reserved_shared=1024, shared_per_block_kib=99),  # A10
    (8, 9): SmLimits(48, 24, shared_kib=100, shared_unit=128, reserved_shared=1024, shared_per_block_kib=99),  # L4
    (9, 0): SmLimits(64, 32, shared_kib=228, shared_unit=128, reserved_shared=1024, shared_per_block_kib=227),  # H100
}
REGISTERS_PER_SM = 65536
SUB_PARTITIONS = 4  # registers are split between the SM's 4 warp schedulers: a warp lives in one of them
REGISTER_UNIT = 256
MAX_REGISTERS_PER_THREAD = 255
WARP_SIZE = 32
MAX_THREADS_PER_BLOCK = 1024


@dataclass(frozen=True)
class Toolchain:
    """Whether real PTX can be made here, and why not when it cannot."""

    available: bool
    why: str
    ptxas: str | None


@dataclass(frozen=True)
class KernelUsage:
    """What ``ptxas -v`` reports for one kernel: per thread (registers, stack) and per block (shared)."""

    registers: int
    shared_bytes: int
    stack_bytes: int
    spill_bytes: int


@dataclass(frozen=True)
class Occupancy:
    """Resident blocks and warps per SM, the fraction of the SM's warp slots, and the limit that binds."""

    blocks_per_sm: int
    warps_per_sm: int
    fraction: float
    limited_by: str


def _find_ptxas() -> str | None:
    try:
        from cuda.pathfinder import find_nvidia_binary_utility  # wheels first, then CUDA_HOME, then PATH
    except ImportError:
        import shutil

        return shutil.which("ptxas")
    return find_nvidia_binary_utility("ptxas")


def toolchain() -> Toolchain:
    """Find NVVM and NVRTC (numba-cuda's compiler needs both) and ``ptxas``; say what is missing."""
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib
    except ImportError:
        return Toolchain(False, "numba-cuda's cuda-pathfinder is not installed (pip install numba-cuda)", None)
    missing = []
    for lib in ("nvvm", "nvrtc"):
        try:
            load_nvidia_dynamic_lib(lib)
        except Exception:  # noqa: BLE001 (pathfinder raises several kinds of not-found)
            missing.append(f"lib{lib}")
    ptxas = _find_ptxas()
    if ptxas is None:
        missing.append("ptxas")
    if missing:
        return Toolchain(
            False,
            f"no {', '.join(missing)}: install the CUDA toolkit, or NVIDIA's wheels from PyPI (Linux x86-64): "
            f"pip install 'cuda-toolkit[nvcc,nvrtc,nvvm]==13.*'",
            ptxas,
        )
    return Toolchain(True, f"real PTX: numba-cuda's NVVM, then {ptxas} -v", ptxas)


def _python_function(kernel: Any) -> Any:
    # a Numba dispatcher keeps it as .py_func, the simulator's kernel as .fn
    return getattr(kernel, "py_func", None) or getattr(kernel, "fn", None) or kernel


def kernel_source(kernel: Any) -> str:
    """The Python source of a ``@cuda.jit`` kernel (a Numba dispatcher, the simulator's kernel, or a function)."""
    return textwrap.dedent(inspect.getsource(_python_function(kernel)))


_COMPILE_SCRIPT = """
import json, math, sys
import numpy as np
import numba
from numba import cuda
job = json.load(sys.stdin)
names = {"cuda": cuda, "math": math, "np": np, "numba": numba}
names.update({t: getattr(numba, t) for t in ("float32", "float64", "int8", "int16", "int32", "int64",
                                              "uint8", "uint16", "uint32", "uint64", "boolean", "void")})
names.update(job["constants"])
exec(compile(job["source"], "<kernel " + job["name"] + ">", "exec"), names)
kernel = names[job["name"]]
ptx, _ = cuda.compile_ptx(getattr(kernel, "py_func", kernel), job["signature"], cc=tuple(job["cc"]),
                          fastmath=job["fastmath"])
sys.stdout.write(ptx)
"""


def compile_ptx(
    kernel: Any,
    signature: str,
    cc: tuple[int, int] = (9, 0),
    *,
    name: str | None = None,
    constants: dict[str, Any] | None = None,
    fastmath: bool = False,
    timeout_s: float = 180,
) -> str:
    """PTX of ``kernel`` for compute capability ``cc``, e.g. ``signature="void(float32[:], float32[:])"``.

    ``kernel`` is a ``@cuda.jit`` kernel or its source text (then give ``name``). The source runs in a fresh
    Python that knows ``cuda``, ``math``, ``np``, ``numba``, Numba's scalar types (``float32``...) and ``constants`` (global numbers the kernel reads,
    such as a tile size): those are all it sees of the notebook.
    """
    if isinstance(kernel, str):
        if name is None:
            raise ValueError("compile_ptx(source_text, ...) needs name=, the kernel's name in that source")
        source = kernel
    else:
        source = kernel_source(kernel)
        name = name or _python_function(kernel).__name__
    job = dict(source=source, name=name, signature=signature, cc=list(cc), fastmath=fastmath, constants=constants or {})
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0")
    done = subprocess.run(
        [sys.executable, "-c", _COMPILE_SCRIPT],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout_s,
        check=False,
    )
    if done.returncode != 0:
        last = "\n".join(done.stderr.strip().splitlines()[-6:])
        raise RuntimeError(f"numba-cuda could not compile {name} to PTX for sm_{cc[0]}{cc[1]}:\n{last}")
    return done.stdout


def compile_cuda_cpp(source: str, cc: tuple[int, int] = (9, 0), *, name: str = "kernel.cu") -> str:
    """PTX of CUDA C++ ``source`` for compute capability ``cc``, compiled by NVRTC (no GPU needed).

    NVRTC is NVIDIA's runtime compiler for CUDA C++, the front end ``nvcc`` uses, from the ``ptx`` extra's
    wheels. Mark kernels ``extern "C"`` to keep their names unmangled in the PTX. Raises RuntimeError with
    the compiler's log when the source does not compile, or when NVRTC is missing (``toolchain().why``).
    """
    try:
        from cuda.bindings import nvrtc
    except ImportError:
        raise RuntimeError("no NVRTC here: cuda-bindings is not installed (pip install numba-cuda)") from None

    def check(result: tuple) -> tuple:
        if result[0] != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise RuntimeError(f"NVRTC: {result[0].name}")
        return result[1:]

    try:
        (program,) = check(nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], []))
    except RuntimeError as exc:  # the library itself is missing: the ptx extra
        raise RuntimeError(f"{exc}; {toolchain().why}") from None
    try:
        options = [f"--gpu-architecture=compute_{cc[0]}{cc[1]}".encode()]
        compiled = nvrtc.nvrtcCompileProgram(program, len(options), options)[0]
        if compiled != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            (size,) = check(nvrtc.nvrtcGetProgramLogSize(program))
            log = b" " * size
            check(nvrtc.nvrtcGetProgramLog(program, log))
            raise RuntimeError(f"NVRTC could not compile {name} for sm_{cc[0]}{cc[1]}:\n{log.decode().strip()}")
        (size,) = check(nvrtc.nvrtcGetPTXSize(program))
        ptx = b" " * size
        check(nvrtc.nvrtcGetPTX(program, ptx))
    finally:
        nvrtc.nvrtcDestroyProgram(program)
    return ptx.decode().rstrip("\x00")


def ptxas_usage(ptx: str, cc: tuple[int, int] = (9, 0), *, max_registers: int | None = None) -> KernelUsage:
    """Assemble ``ptx`` for ``sm_<cc>`` with ``ptxas -v`` and read registers, shared memory, stack and spills."""
    ptxas = _find_ptxas()
    if ptxas is None:
        raise RuntimeError(toolchain().why)
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "kernel.ptx"
        source.write_text(ptx)
        command = [ptxas, f"-arch=sm_{cc[0]}{cc[1]}", "-v", str(source), "-o", str(Path(folder) / "kernel.cubin")]
        if max_registers is not None:
            command.insert(1, f"-maxrregcount={max_registers}")
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    report = done.stderr + done.stdout
    if done.returncode != 0:
        raise RuntimeError(f"ptxas failed on the PTX:\n{report.strip()[-800:]}")
    return parse_ptxas_report(report)


def parse_ptxas_report(report: str) -> KernelUsage:
    """Registers, shared bytes, stack bytes and spilled bytes from ``ptxas -v``'s report of one kernel."""

    def first(pattern: str) -> int:
        found = re.search(pattern, report)
        return int(found.group(1)) if found else 0

    if not re.search(r"Used \d+ registers", report):
        raise ValueError(f"no 'Used N registers' line in the ptxas report:\n{report[-500:]}")
    return KernelUsage(
        registers=first(r"Used (\d+) registers"),
        shared_bytes=first(r"(\d+) bytes smem"),
        stack_bytes=first(r"(\d+) bytes stack frame"),
        spill_bytes=first(r"(\d+) bytes spill stores") + first(r"(\d+) bytes spill loads"),
    )


def occupancy(
    threads_per_block: int, registers_per_thread: int, shared_bytes_per_block: int = 0, cc: tuple[int, int] = (9, 0)
) -> Occupancy:
    """Blocks resident per SM = min over the limits of warps, blocks, registers and shared memory.

    As NVIDIA's calculator (``cuda_occupancy.h``) counts them. Registers: each warp gets
    ``ceil(32 r / 256) * 256`` of one sub-partition's 16,384, so ``4 * floor(16384 / that)`` warps fit
    (fewer than ``65536 / that``: a warp cannot straddle two sub-partitions); a block is refused when
    its warps, rounded up to a multiple of 4, need more than 65,536. Shared memory: each block gets
    ``ceil((s + reserved) / unit) * unit`` of the SM's; a block over the per-block limit (48 KiB, more
    once the kernel opts in, up to ``shared_per_block_kib``) cannot launch. Occupancy = resident warps /
    the SM's maximum warps.
    """
    if cc not in SM_LIMITS:
        raise ValueError(f"no limits for compute capability {cc}: known {sorted(SM_LIMITS)}")
    if not 1 <= threads_per_block <= MAX_THREADS_PER_BLOCK:
        raise ValueError(f"threads_per_block must be 1 to {MAX_THREADS_PER_BLOCK}, got {threads_per_block}")
    if not 0 <= registers_per_thread <= MAX_REGISTERS_PER_THREAD:
        raise ValueError(f"registers_per_thread must be 0 to {MAX_REGISTERS_PER_THREAD}, got {registers_per_thread}")
    if shared_bytes_per_block < 0:
        raise ValueError(f"shared_bytes_per_block must be >= 0, got {shared_bytes_per_block}")
    sm = SM_LIMITS[cc]
    warps_per_block = math.ceil(threads_per_block / WARP_SIZE)
    limits = {"warps": sm.max_warps // warps_per_block, "blocks": sm.max_blocks}
    if registers_per_thread > 0:
        registers_per_warp = math.ceil(registers_per_thread * WARP_SIZE / REGISTER_UNIT) * REGISTER_UNIT
        # the hardware's launch check assumes the block's warps spread over all 4 sub-partitions
        if registers_per_warp * math.ceil(warps_per_block / SUB_PARTITIONS) * SUB_PARTITIONS > REGISTERS_PER_SM:
            limits["registers"] = 0
        else:
            warps_per_sub_partition = (REGISTERS_PER_SM // SUB_PARTITIONS) // registers_per_warp
            limits["registers"] = warps_per_sub_partition * SUB_PARTITIONS // warps_per_block
    shared_per_block = shared_bytes_per_block + sm.reserved_shared
    if shared_per_block > 0:
        shared_per_block = math.ceil(shared_per_block / sm.shared_unit) * sm.shared_unit
        if shared_per_block > sm.shared_per_block_kib * 1024 + sm.reserved_shared:
            limits["shared memory"] = 0
        else:
            limits["shared memory"] = sm.shared_kib * 1024 // shared_per_block
    blocks = min(limits.values())
    limited_by = min(limits, key=lambda k: (limits[k], ["warps", "registers", "shared memory", "blocks"].index(k)))
    warps = blocks * warps_per_block
    return Occupancy(blocks, warps, warps / sm.max_warps, limited_by)
