"""ptx.occupancy against NVIDIA's own occupancy calculator, ``cuda_occupancy.h``, compiled here with g++.

The header is the CUDA Runtime's header-only calculator (the one behind
``cudaOccupancyMaxActiveBlocksPerMultiprocessor``); it needs no GPU. It comes
with the CUDA toolkit, the ``nvidia-cuda-runtime`` wheels of the ``ptx`` extra
and Triton's wheel. For every compute capability ptx knows, every block size
that is a multiple of a warp and some that are not, every register count from 0
to 255 and shared-memory sizes on both sides of each limit, the number of blocks
resident per SM must be the same. Skips, saying why, without the header or g++.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

from hpml_lab_utils import ptx

import pytest

pytestmark = pytest.mark.slow  # about 15 s: 600,000 cases

DRIVER = r"""
#include <cstdio>
#include <vector>
#include "cuda_occupancy.h"

// stdin: major minor threads_per_sm shared_per_sm shared_per_block_optin reserved_per_block,
// then the block sizes (count, values) and the shared-memory sizes (count, values).
// stdout: blocks per SM for every (block size, registers 0..255, shared bytes), in that order; -1 on an error.
int main() {
    cudaOccDeviceProp prop;
    long shared_sm, optin, reserved;
    if (scanf("%d %d %d %ld %ld %ld", &prop.computeMajor, &prop.computeMinor, &prop.maxThreadsPerMultiprocessor,
              &shared_sm, &optin, &reserved) != 6) return 2;
    prop.maxThreadsPerBlock = 1024;
    prop.regsPerBlock = 65536;
    prop.regsPerMultiprocessor = 65536;
    prop.warpSize = 32;
    prop.sharedMemPerBlock = 48 * 1024;
    prop.sharedMemPerMultiprocessor = shared_sm;
    prop.sharedMemPerBlockOptin = optin;
    prop.reservedSharedMemPerBlock = reserved;
    prop.numSms = 1;
    int n;
    std::vector<int> threads, shared;
    if (scanf("%d", &n) != 1) return 2;
    threads.resize(n);
    for (int &t : threads) if (scanf("%d", &t) != 1) return 2;
    if (scanf("%d", &n) != 1) return 2;
    shared.resize(n);
    for (int &s : shared) if (scanf("%d", &s) != 1) return 2;
    cudaOccDeviceState state;
    for (int t : threads) {
        for (int r = 0; r <= 255; ++r) {
            for (int s : shared) {
                cudaOccFuncAttributes attr;
                attr.maxThreadsPerBlock = 1024;
                attr.numRegs = r;
                attr.sharedSizeBytes = 0;
                attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;  // a kernel that asks for more than 48 KiB opts in
                attr.maxDynamicSharedSizeBytes = optin;
                cudaOccResult result;
                cudaOccError err = cudaOccMaxActiveBlocksPerMultiprocessor(&result, &prop, &attr, &state, t, s);
                printf("%d\n", err == CUDA_OCC_SUCCESS ? result.activeBlocksPerMultiprocessor : -1);
            }
        }
    }
    return 0;
}
"""

THREADS = sorted({*range(32, 1025, 32), 1, 17, 33, 100, 250, 513, 777, 1000})


def find_header() -> Path | None:
    """cuda_occupancy.h from the CUDA toolkit, the nvidia-* wheels or Triton's wheel, whichever is here."""
    roots = [os.environ.get("CUDA_HOME", ""), os.environ.get("CUDA_PATH", ""), *sorted(glob.glob("/usr/local/cuda*"))]
    candidates = [Path(r) / "include" / "cuda_occupancy.h" for r in roots if r]
    for site in sys.path:
        candidates += [Path(p) for p in sorted(glob.glob(f"{site}/nvidia/*/include/cuda_occupancy.h"))]
        candidates.append(Path(site) / "triton" / "backends" / "nvidia" / "include" / "cuda_occupancy.h")
    return next((c for c in candidates if c.is_file()), None)


@pytest.fixture(scope="module")
def calculator(tmp_path_factory) -> Path:
    header = find_header()
    if header is None:
        pytest.skip("no cuda_occupancy.h here (CUDA toolkit, the ptx extra's nvidia wheels or Triton)")
    if shutil.which("g++") is None:
        pytest.skip("no g++ to compile NVIDIA's occupancy calculator (make cpp-tools)")
    folder = tmp_path_factory.mktemp("occupancy")
    (folder / "driver.cpp").write_text(DRIVER)
    subprocess.run(
        ["g++", "-O1", "-std=c++17", f"-I{header.parent}", "driver.cpp", "-o", "driver"],
        cwd=folder,
        check=True,
        capture_output=True,
    )
    return folder / "driver"


def _shared_sizes(sm: ptx.SmLimits) -> list[int]:
    """Both sides of 48 KiB, of the opt-in limit and of a few allocation units."""
    optin = sm.shared_per_block_kib * 1024
    return sorted({0, 1, 127, 129, 1000, 4096, 12 * 1024 + 1, 48 * 1024, 48 * 1024 + 1, optin // 2, optin, optin + 1})


@pytest.mark.parametrize("cc", sorted(ptx.SM_LIMITS), ids=lambda cc: f"sm_{cc[0]}{cc[1]}")
def test_blocks_per_sm_equal_nvidias_calculator(calculator, cc):
    sm = ptx.SM_LIMITS[cc]
    shared = _shared_sizes(sm)
    spec = [cc[0], cc[1], sm.max_warps * 32, sm.shared_kib * 1024, sm.shared_per_block_kib * 1024, sm.reserved_shared]
    stdin = " ".join(map(str, [*spec, len(THREADS), *THREADS, len(shared), *shared]))
    done = subprocess.run([str(calculator)], input=stdin, capture_output=True, text=True, check=True)
    theirs = iter(int(line) for line in done.stdout.split())
    mismatches = []
    for threads in THREADS:
        for registers in range(256):
            for shared_bytes in shared:
                nvidia = next(theirs)
                ours = ptx.occupancy(threads, registers, shared_bytes, cc).blocks_per_sm
                if ours != nvidia:
                    mismatches.append((threads, registers, shared_bytes, ours, nvidia))
    cases = len(THREADS) * 256 * len(shared)
    assert not mismatches, (
        f"sm_{cc[0]}{cc[1]}: {len(mismatches)} of {cases} cases differ (threads, registers, shared, ours, "
        f"NVIDIA's): {mismatches[:8]}"
    )
