"""hpml_lab_utils.cuda_helpers (weeks 5-6, lab04): thread maps, GPU-only timing that says None on the simulator.

The kernels here run on Numba's CUDA simulator when there is no GPU (``import
hpml_lab_utils`` turns it on before ``numba.cuda`` is imported) and on the GPU
otherwise; the timing helpers are checked on whichever is present.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import hpml_lab_utils as hl
from hpml_lab_utils import cuda_helpers

import matplotlib.pyplot as plt
import numpy as np
import pytest

pytestmark = pytest.mark.lab04

SIMULATED = hl.cuda_kernels_are_simulated()


def _kernels_can_run() -> bool:
    """False when numba.cuda was imported without the simulator on a machine without a GPU."""
    if SIMULATED or hl.has_cuda():
        return True
    return False


needs_kernels = pytest.mark.skipif(not _kernels_can_run(), reason="numba.cuda imported before the simulator switch")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@needs_kernels
@pytest.mark.parametrize("n, blocks, threads", [(1, 1, 32), (40, 2, 8), (40, 5, 8), (37, 3, 4), (10, 4, 8)])
def test_grid_stride_owners_follow_the_grid_stride_loop(n, blocks, threads):
    owners = hl.grid_stride_owners(n, blocks, threads)
    assert owners.shape == (n,)
    # element i is handled by global thread i mod G, whatever the launch
    np.testing.assert_array_equal(owners, np.arange(n) % (blocks * threads))


@needs_kernels
def test_grid_stride_owners_of_nothing_and_bad_launches():
    assert hl.grid_stride_owners(0, 1, 8).shape == (0,)
    with pytest.raises(ValueError):
        hl.grid_stride_owners(10, 0, 8)
    with pytest.raises(ValueError):
        hl.grid_stride_owners(-1, 1, 8)


@needs_kernels
@pytest.mark.parametrize("shape, block", [((5, 7), (4, 2)), ((21, 35), (16, 16)), ((1, 1), (8, 8)), ((3, 9), (3, 3))])
def test_grid_2d_owners_record_block_and_thread_of_every_launched_thread(shape, block):
    rows, cols = shape
    bx, by = block
    got = hl.grid_2d_owners(shape, block)
    gx, gy = -(-cols // bx), -(-rows // by)
    assert got["grid"] == (gx, gy)
    assert got["shape"] == shape and got["block"] == block
    ey, ex = gy * by, gx * bx
    assert got["block_id"].shape == (ey, ex) and got["thread_id"].shape == (ey, ex)
    row, col = np.meshgrid(np.arange(ey), np.arange(ex), indexing="ij")
    np.testing.assert_array_equal(got["block_id"], (row // by) * gx + col // bx)
    np.testing.assert_array_equal(got["thread_id"], (row % by) * bx + col % bx)


def test_grid_2d_owners_rejects_empty_shapes():
    with pytest.raises(ValueError):
        hl.grid_2d_owners((0, 3), (4, 4))
    with pytest.raises(ValueError):
        hl.grid_2d_owners((3, 3), (0, 4))


@needs_kernels
def test_plots_return_axes():
    ax = hl.plot_grid_stride_owners(hl.grid_stride_owners(20, 2, 4), 4, title="grid stride")
    assert ax.get_title() == "grid stride"
    assert len(ax.texts) == 20  # one label per element
    ax = hl.plot_grid_2d_owners(hl.grid_2d_owners((5, 7), (4, 2)))
    assert "5 x 7" in ax.get_title()
    _fig, ax2 = plt.subplots()
    assert hl.plot_grid_2d_owners(hl.grid_2d_owners((3, 3), (2, 2)), ax=ax2) is ax2


def test_timing_note_and_gpu_only_say_where_we_are(capsys):
    if SIMULATED:
        assert "simulator" in hl.timing_note() and "not meaningful" in hl.timing_note()
        assert hl.gpu_only("the thing") is False
        out = capsys.readouterr().out
        assert "skipped on this machine: the thing" in out and "simulator" in out
    else:
        assert "CUDA events" in hl.timing_note()
        assert hl.gpu_only("the thing") is True
        assert capsys.readouterr().out == ""


@pytest.mark.skipif(not SIMULATED, reason="checks the simulator's behaviour")
def test_timing_helpers_return_none_on_the_simulator():
    calls = []
    assert hl.time_kernel_ms(lambda: calls.append(1)) is None
    assert hl.kernel_speedup(lambda: calls.append(1), lambda: calls.append(2)) is None
    assert hl.transfer_bandwidth_gbs() is None
    assert calls == []  # nothing is run for a number that would mean nothing


@pytest.mark.skipif(SIMULATED or not hl.has_cuda(), reason="needs a CUDA GPU")
def test_timing_helpers_measure_on_a_gpu():
    from numba import cuda

    @cuda.jit
    def scale(x, factor):
        i = cuda.grid(1)
        if i < x.shape[0]:
            x[i] *= factor

    x = cuda.to_device(np.ones(1 << 20, dtype=np.float32))
    blocks = (x.shape[0] + 255) // 256
    ms = hl.time_kernel_ms(lambda: scale[blocks, 256](x, 1.0), repeats=5)
    assert ms is not None and ms > 0
    ratio = hl.kernel_speedup(lambda: scale[blocks, 256](x, 1.0), lambda: scale[blocks, 256](x, 1.0), rounds=3)
    assert ratio is not None and 0.2 < ratio < 5  # the same kernel twice: a ratio near 1
    bw = hl.transfer_bandwidth_gbs(nbytes=8 << 20, repeats=2)
    assert set(bw) == {"h2d pageable", "h2d pinned", "d2h pageable", "d2h pinned"}
    assert all(v > 0 for v in bw.values())
    with pytest.raises(ValueError):
        hl.time_kernel_ms(lambda: None, repeats=0)


def test_numba_cuda_is_not_imported_by_importing_the_module():
    import subprocess
    import sys

    code = "import hpml_lab_utils, sys; print('numba.cuda' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
    assert cuda_helpers.SIMULATOR_NOTE.startswith("no GPU found")
