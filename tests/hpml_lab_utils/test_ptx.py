"""hpml_lab_utils.ptx: the occupancy calculator by hand, ptxas's report, and real PTX from numba-cuda."""

from __future__ import annotations

import hpml_lab_utils  # noqa: F401  (first: the CUDA simulator, as in every notebook)
from hpml_lab_utils import ptx

import pytest

TOOLS = ptx.toolchain()
needs_tools = pytest.mark.skipif(not TOOLS.available, reason=f"{TOOLS.why} (`make setup` installs the ptx extra)")


@pytest.mark.parametrize(
    ("threads", "registers", "shared", "cc", "blocks", "fraction", "limited_by"),
    [
        # 64 registers x 32 lanes = 2048 per warp; 65536 / 2048 = 32 warps = 4 blocks of 8 warps
        (256, 64, 0, (9, 0), 4, 0.5, "registers"),
        # 40 x 32 = 1280 per warp (a multiple of 256): 51 warps fit, 6 blocks of 8 warps = 48 of 64
        (256, 40, 0, (9, 0), 6, 0.75, "registers"),
        # 48 KiB + the 1 KiB the runtime reserves = 50176 bytes; 228 KiB / 50176 = 4 blocks of 4 warps
        (128, 32, 48 * 1024, (9, 0), 4, 0.25, "shared memory"),
        # 76 KiB is a third of 228 KiB, but with the reserved 1 KiB only two such blocks fit
        (128, 32, 76 * 1024, (9, 0), 2, 0.125, "shared memory"),
        # one-warp blocks: 32 blocks at most, so half of the 64 warp slots
        (32, 16, 0, (9, 0), 32, 0.5, "blocks"),
        (1024, 32, 0, (9, 0), 2, 1.0, "warps"),
        # 33 x 32 = 1056 registers per warp, allocated as 1280 (units of 256): the same as 40 registers
        (256, 33, 0, (9, 0), 6, 0.75, "registers"),
        # a T4 holds 32 warps per SM: 4 blocks of 256 threads fill it
        (256, 32, 0, (7, 5), 4, 1.0, "warps"),
        # 100 threads are 4 warps (the last one partly empty); an A10 holds 48 warps: 12 such blocks
        (100, 16, 0, (8, 6), 12, 1.0, "warps"),
    ],
)
def test_occupancy_matches_the_calculator_by_hand(threads, registers, shared, cc, blocks, fraction, limited_by):
    result = ptx.occupancy(threads, registers, shared, cc)
    assert (result.blocks_per_sm, result.fraction, result.limited_by) == (blocks, pytest.approx(fraction), limited_by)
    assert result.warps_per_sm == blocks * -(-threads // 32)


def test_occupancy_falls_as_registers_rise():
    fractions = [ptx.occupancy(256, r).fraction for r in (32, 64, 96, 128, 255)]
    assert fractions == sorted(fractions, reverse=True) and fractions[0] == 1.0 and fractions[-1] < 0.25


def test_occupancy_rejects_what_hardware_rejects():
    with pytest.raises(ValueError, match="threads_per_block must be 1 to 1024"):
        ptx.occupancy(2048, 16)
    with pytest.raises(ValueError, match="no limits for compute capability"):
        ptx.occupancy(256, 16, cc=(1, 0))


REPORT = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z6kernel' for 'sm_90'
ptxas info    : Function properties for _Z6kernel
    32 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 520 bytes smem, 368 bytes cmem[0]
"""


def test_parse_ptxas_report_reads_every_figure():
    assert ptx.parse_ptxas_report(REPORT) == ptx.KernelUsage(
        registers=40, shared_bytes=520, stack_bytes=32, spill_bytes=20
    )
    with pytest.raises(ValueError, match="no 'Used N registers'"):
        ptx.parse_ptxas_report("ptxas fatal   : Unresolved extern function")


BLUR = """
@cuda.jit
def blur3_kernel(x, y):
    tile = cuda.shared.array(BLUR_TILE, float32)
    i = cuda.grid(1)
    t = cuda.threadIdx.x + 1
    if i < x.shape[0]:
        tile[t] = x[i]
    cuda.syncthreads()
    if 0 < i < x.shape[0] - 1:
        y[i] = (tile[t - 1] + tile[t] + tile[t + 1]) / float32(3.0)
"""

REGISTER_TILE = """
@cuda.jit
def horner_items_kernel(coeffs, x, y):
    start = cuda.grid(1) * ITEMS
    vals = cuda.local.array(ITEMS, float32)
    acc = cuda.local.array(ITEMS, float32)
    for r in range(ITEMS):
        vals[r] = x[start + r] if start + r < x.shape[0] else float32(0.0)
        acc[r] = float32(0.0)
    for c in range(coeffs.shape[0]):
        for r in range(ITEMS):
            acc[r] = acc[r] * vals[r] + coeffs[c]
    for r in range(ITEMS):
        if start + r < x.shape[0]:
            y[start + r] = acc[r]
"""


@pytest.mark.slow
@needs_tools
def test_real_ptx_reports_the_shared_array_and_registers_that_grow_with_the_register_tile():
    code = ptx.compile_ptx(BLUR, "void(float32[:], float32[:])", name="blur3_kernel", constants={"BLUR_TILE": 130})
    assert ".target sm_90" in code and "bar.sync" in code and "ld.shared.f32" in code
    assert ptx.ptxas_usage(code).shared_bytes == 130 * 4
    registers = [
        ptx.ptxas_usage(
            ptx.compile_ptx(
                REGISTER_TILE,
                "void(float32[:], float32[:], float32[:])",
                name="horner_items_kernel",
                constants={"ITEMS": items},
            )
        ).registers
        for items in (1, 32)
    ]
    assert registers[1] > 2 * registers[0], registers


@pytest.mark.slow
@needs_tools
def test_compile_errors_name_the_kernel_and_the_cause():
    with pytest.raises(RuntimeError, match=r"could not compile blur3_kernel to PTX for sm_80(.|\n)*BLUR_TILE"):
        ptx.compile_ptx(BLUR, "void(float32[:], float32[:])", (8, 0), name="blur3_kernel")  # no constants given


def test_compile_ptx_from_text_needs_the_name():
    with pytest.raises(ValueError, match="needs name="):
        ptx.compile_ptx(BLUR, "void(float32[:], float32[:])")


BLUR_CPP = r"""
extern "C" __global__ void blur3(const float* x, float* y, int n) {
    __shared__ float tile[BLUR_TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x + 1;
    if (i < n) {
        tile[t] = x[i];
        if (threadIdx.x == 0 && i > 0) tile[0] = x[i - 1];
        if (threadIdx.x == blockDim.x - 1 && i + 1 < n) tile[t + 1] = x[i + 1];
    }
    __syncthreads();
    if (i > 0 && i < n - 1) y[i] = (tile[t - 1] + tile[t] + tile[t + 1]) / 3.0f;
}
"""


@needs_tools
def test_cuda_cpp_compiles_to_ptx_without_a_gpu_and_ptxas_reads_its_shared_array():
    code = ptx.compile_cuda_cpp("#define BLUR_TILE 130\n" + BLUR_CPP, (8, 0), name="blur3.cu")
    assert ".target sm_80" in code and ".entry blur3(" in code and "bar.sync" in code
    usage = ptx.ptxas_usage(code, (8, 0))
    assert usage.shared_bytes == 130 * 4 and 0 < usage.registers < 64


@needs_tools
def test_cuda_cpp_errors_carry_the_compilers_log():
    with pytest.raises(RuntimeError, match=r"could not compile blur3.cu for sm_90(.|\n)*BLUR_TILE"):
        ptx.compile_cuda_cpp(BLUR_CPP, name="blur3.cu")  # BLUR_TILE is not defined
