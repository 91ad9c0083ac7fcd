"""Tests of hpml_lab_utils.roofline, ceilings and roofline_plot (week 2, lab01): formulas, plot, cache, measurement."""

from __future__ import annotations

import json
import math
import time
import warnings

import matplotlib

matplotlib.use("Agg")
from hpml_lab_utils import ceilings, machine, roofline, roofline_plot
from hpml_lab_utils.device import has_cuda
from hpml_lab_utils.roofline import (
    AboveRoofWarning,
    KernelPoint,
    Peaks,
    RooflineCacheWarning,
    measure_peaks,
    theoretical_peak_flops,
)
from hpml_lab_utils.roofline import _attainable as attainable
from hpml_lab_utils.roofline import _ridge_point as ridge_point
from hpml_lab_utils.roofline_plot import plot_roofline

import matplotlib.pyplot as plt
import numpy as np
import pytest

pytestmark = pytest.mark.lab01


def make_peaks(machine: str = "test-machine", fast: bool = False) -> Peaks:
    return Peaks(
        device="CPU: test (2 cores)",
        flops={"float32": 1.2e12, "float64": 6.0e11},
        bandwidth=2.1e10,
        sources={
            "float32": "GEMM 2048^3 numpy float32",
            "float64": "GEMM 2048^3 numpy float64",
            "bandwidth": "triad numba",
        },
        machine=machine,
        measured_at="2025-01-01T00:00:00+00:00",
        fast=fast,
    )


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# ------------------------------------------------------------------- formulas


def test_theoretical_peak_flops():
    # 4 cores x 3 GHz x 32 FLOP/cycle (AVX2: 2 FMA units x 8 FP32 lanes x 2)
    assert theoretical_peak_flops(4, 3.0, 32) == pytest.approx(384e9)
    assert theoretical_peak_flops(1, 1.0, 1) == pytest.approx(1e9)
    assert theoretical_peak_flops(2, 2.5, 64) == pytest.approx(320e9)


def test_ridge_point():
    assert ridge_point(1.2e12, 2.1e10) == pytest.approx(1.2e12 / 2.1e10)
    assert ridge_point(100e9, 10e9) == pytest.approx(10.0)


def test_attainable_both_sides_of_the_ridge():
    peak, bw = 100e9, 10e9  # ridge at 10 FLOP/byte
    assert attainable(2.0, peak, bw) == pytest.approx(20e9)  # memory-bound: ai * bw
    assert attainable(0.25, peak, bw) == pytest.approx(2.5e9)
    assert attainable(10.0, peak, bw) == pytest.approx(100e9)  # at the ridge both agree
    assert attainable(50.0, peak, bw) == pytest.approx(100e9)  # compute-bound: the peak
    assert isinstance(attainable(2.0, peak, bw), float)
    got = attainable(np.array([1.0, 10.0, 100.0]), peak, bw)
    assert isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, [10e9, 100e9, 100e9])


def test_kernel_point_ai_and_rate():
    n = 1_000_000
    # float32 axpy y = a*x + y: 2 FLOPs, reads x and y, writes y: 12 bytes per element
    p = KernelPoint("axpy", flops=2 * n, nbytes=3 * 4 * n, seconds=1e-3)
    assert p.ai == pytest.approx(1 / 6)
    assert p.flops_per_s == pytest.approx(2e9)
    with pytest.raises(ValueError, match="seconds"):
        KernelPoint("broken", flops=1.0, nbytes=1.0, seconds=0.0)


def test_peaks_dict_round_trip():
    peaks = make_peaks()
    again = Peaks.from_dict(json.loads(json.dumps(peaks.to_dict())))
    assert again == peaks
    with pytest.raises((KeyError, ValueError)):
        Peaks.from_dict({**peaks.to_dict(), "bandwidth": -1.0})


def test_rate_formatting():
    assert roofline_plot.format_bandwidth(2.1e10) == "21 GB/s"
    assert roofline_plot.format_bandwidth(3.35e12) == "3.35 TB/s"
    assert roofline_plot.format_flops(1.2e12) == "1.2 TFLOP/s"
    assert roofline_plot.format_flops(1.8123e11) == "181 GFLOP/s"


# ----------------------------------------------------------------------- plot


def _texts(ax) -> list[str]:
    return [t.get_text() for t in ax.texts]


def test_plot_labels_every_ceiling_with_its_source():
    peaks = make_peaks()
    below = KernelPoint("axpy", flops=2e8, nbytes=1.2e9, seconds=0.1)  # 2 GFLOP/s at AI 1/6: under the roof
    with warnings.catch_warnings():
        warnings.simplefilter("error", AboveRoofWarning)
        ax = plot_roofline(peaks, [below])
    assert isinstance(ax, matplotlib.axes.Axes)
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    texts = _texts(ax)
    assert "DRAM 21 GB/s [triad]" in texts
    assert "FP32 1.2 TFLOP/s [GEMM]" in texts
    assert "FP64 600 GFLOP/s [GEMM]" in texts
    assert any(t.startswith("ridge 57.1 FLOP/byte") for t in texts), texts
    assert any(t.startswith("axpy") for t in texts)
    assert not any("above roof" in t for t in texts)
    assert "FLOP/byte" in ax.get_xlabel() and "GFLOP/s" in ax.get_ylabel()


def test_plot_flags_a_point_above_the_roof():
    peaks = make_peaks()  # float32 roof at AI 1: 21 GFLOP/s
    too_fast = KernelPoint("miscounted", flops=50e9, nbytes=50e9, seconds=1.0)  # 50 GFLOP/s at AI 1
    within_slack = KernelPoint("close", flops=21.8e9, nbytes=21.8e9, seconds=1.0)  # 3.8% above: tolerated
    with pytest.warns(AboveRoofWarning, match=r"miscounted.*counting error") as record:
        ax = plot_roofline(peaks, [too_fast, within_slack])
    assert not any("'close'" in str(w.message) for w in record)
    texts = _texts(ax)
    assert any(t.startswith("miscounted") and "above roof" in t for t in texts)
    assert any(t.startswith("close") and "above roof" not in t for t in texts)
    red = [line for line in ax.lines if line.get_color() == "red"]
    assert len(red) == 1 and red[0].get_xydata()[0] == pytest.approx([1.0, 50.0])


def test_plot_unknown_dtype_says_what_was_measured():
    with pytest.raises(ValueError, match="float32"):
        plot_roofline(make_peaks(), dtype="float16")


# ---------------------------------------------------------------------- cache


def test_explore_redraws_on_every_change_and_marks_the_ceiling():
    peaks = make_peaks()
    box = roofline_plot.explore(peaks, [KernelPoint("dot", flops=2e6, nbytes=8e6, seconds=1e-3)])
    roof_menu, intensity = box.children[0].children
    assert roof_menu.options[0] == max(peaks.flops, key=peaks.flops.get)  # highest roof first
    dtype, x, y = box.last_drawn
    assert dtype == "float32" and y == pytest.approx(attainable(x, peaks.flops["float32"], peaks.bandwidth))
    intensity.value = 1000.0  # far right of the ridge: the compute roof
    assert box.last_drawn[2] == pytest.approx(peaks.flops["float32"])
    roof_menu.value = "float64"
    assert box.last_drawn[0] == "float64"
    assert box.last_drawn[2] == pytest.approx(min(peaks.flops["float64"], intensity.value * peaks.bandwidth))


@pytest.fixture
def fake_measure(monkeypatch):
    """Replace the measurements by instant fakes and count the calls."""
    calls = {"gemm": 0, "bandwidth": 0}

    def gemm(dtype="float32", device="cpu", n=None):
        calls["gemm"] += 1
        return {"float32": 2e11, "float64": 1e11}[dtype], f"GEMM fake {dtype}"

    def bandwidth(device="cpu", nbytes_per_array=None):
        calls["bandwidth"] += 1
        return 1.5e10, "triad fake"

    monkeypatch.setattr(roofline, "measure_gemm_flops", gemm)
    monkeypatch.setattr(roofline, "measure_bandwidth", bandwidth)
    monkeypatch.delenv("HPML_FAST", raising=False)
    return calls


def test_cache_round_trip(tmp_path, monkeypatch, fake_measure):
    monkeypatch.setenv("HPML_CACHE_DIR", str(tmp_path))
    first = measure_peaks(verbose=False)
    assert fake_measure == {"gemm": 2, "bandwidth": 1}
    assert first.flops == {"float32": 2e11, "float64": 1e11} and first.bandwidth == 1.5e10
    assert first.sources["bandwidth"] == "triad fake" and first.machine == roofline.machine_key()
    files = list(tmp_path.glob("peaks-cpu-*.json"))
    assert files == [roofline.peaks_cache_path("cpu")]
    assert json.loads(files[0].read_text())["peaks"]["bandwidth"] == 1.5e10

    second = measure_peaks(verbose=False)
    assert second == first
    assert fake_measure["bandwidth"] == 1, "a valid cache entry must not be measured again"

    measure_peaks(refresh=True, verbose=False)
    assert fake_measure["bandwidth"] == 2, "refresh=True must measure again"


def test_use_cache_false_neither_reads_nor_writes(tmp_path, monkeypatch, fake_measure):
    monkeypatch.setenv("HPML_CACHE_DIR", str(tmp_path))
    measure_peaks(use_cache=False, verbose=False)
    assert list(tmp_path.iterdir()) == []
    measure_peaks(verbose=False)
    measure_peaks(use_cache=False, verbose=False)
    assert fake_measure["bandwidth"] == 3


def test_cache_of_another_machine_is_ignored(tmp_path, monkeypatch, fake_measure):
    monkeypatch.setenv("HPML_CACHE_DIR", str(tmp_path))
    path = roofline.peaks_cache_path("cpu")
    # a file at this machine's path but written by another machine (copied home folder)
    other = make_peaks(machine="other-host | Other CPU | 64 cores | no GPU")
    path.write_text(json.dumps({"schema": roofline.CACHE_SCHEMA, "device_kind": "cpu", "peaks": other.to_dict()}))
    got = measure_peaks(verbose=False)
    assert fake_measure["bandwidth"] == 1
    assert got.machine == roofline.machine_key() and got.bandwidth == 1.5e10

    # same folder, different machine key: its own file, measured afresh
    monkeypatch.setattr(roofline, "machine_key", lambda: "another box | CPU | 2 cores | no GPU")
    got = measure_peaks(verbose=False)
    assert fake_measure["bandwidth"] == 2
    assert got.machine == "another box | CPU | 2 cores | no GPU"
    assert len(list(tmp_path.glob("peaks-cpu-*.json"))) == 2


def test_fast_mode_entry_is_not_used_in_default_mode(tmp_path, monkeypatch, fake_measure):
    monkeypatch.setenv("HPML_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("HPML_FAST", "1")
    assert measure_peaks(verbose=False).fast
    measure_peaks(verbose=False)
    assert fake_measure["bandwidth"] == 1
    monkeypatch.delenv("HPML_FAST")
    assert not measure_peaks(verbose=False).fast
    assert fake_measure["bandwidth"] == 2
    monkeypatch.setenv("HPML_FAST", "1")
    measure_peaks(verbose=False)  # a full-size entry is good enough in fast mode
    assert fake_measure["bandwidth"] == 2


def test_corrupt_cache_file_is_measured_again(tmp_path, monkeypatch, fake_measure):
    monkeypatch.setenv("HPML_CACHE_DIR", str(tmp_path))
    roofline.peaks_cache_path("cpu").write_text("{not json")
    assert measure_peaks(verbose=False).bandwidth == 1.5e10
    assert fake_measure["bandwidth"] == 1


def test_unwritable_cache_folder_still_works_and_warns_once(tmp_path, monkeypatch, fake_measure):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("HPML_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.setattr(roofline, "_warned_unwritable", False)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        first = measure_peaks(verbose=False)
        second = measure_peaks(verbose=False)
    cache_warnings = [w for w in record if issubclass(w.category, RooflineCacheWarning)]
    assert len(cache_warnings) == 1, [str(w.message) for w in record]
    assert "HPML_CACHE_DIR" in str(cache_warnings[0].message)
    assert first.bandwidth == second.bandwidth == 1.5e10
    assert fake_measure["bandwidth"] == 2


def test_cache_dir_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv("HPML_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert roofline.cache_dir() == tmp_path / "hpml_lab_utils"
    monkeypatch.setenv("HPML_CACHE_DIR", str(tmp_path / "mine"))
    assert roofline.cache_dir() == tmp_path / "mine"


# --------------------------------------------------------- real measurement


def test_last_level_cache_size_is_plausible():
    llc = machine.last_level_cache_bytes()
    assert isinstance(llc, int) and 64 * 1024 <= llc <= 64 * 2**30


@pytest.mark.slow
def test_triad_kernel_is_one_correct_pass():
    triad, fill = ceilings._cpu_triad_kernels()
    rng = np.random.default_rng(1)
    b, c = rng.random(1001), rng.random(1001)
    a = np.empty_like(b)
    triad(a, b, c, 2.5)
    np.testing.assert_allclose(a, b + 2.5 * c)
    fill(a, 4.0)
    assert np.all(a == 4.0)


def _copy_bandwidth(nbytes: int, repeats: int = 5) -> float:
    """Plain numpy copy, STREAM-counted as 2 arrays of bytes per element; best after one warm-up."""
    src = np.ones(nbytes // 8)
    dst = np.zeros_like(src)
    np.copyto(dst, src)
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - start)
    return 2 * src.nbytes / best


@pytest.mark.slow
def test_real_measurement_in_fast_mode(tmp_path, monkeypatch):
    monkeypatch.setenv("HPML_FAST", "1")
    monkeypatch.setenv("HPML_CACHE_DIR", str(tmp_path))
    peaks = measure_peaks(use_cache=False, verbose=False)
    assert list(tmp_path.iterdir()) == [], "use_cache=False must not write"
    assert peaks.fast and set(peaks.flops) >= {"float32", "float64"}
    for value in [*peaks.flops.values(), peaks.bandwidth]:
        assert math.isfinite(value) and value > 0
    assert peaks.sources["float32"].startswith("GEMM 1024^3 numpy")
    assert peaks.sources["bandwidth"].startswith("triad numba")

    nbytes, _note = ceilings._default_array_bytes("cpu")
    copy_bw = _copy_bandwidth(nbytes)
    ratio = peaks.bandwidth / copy_bw
    assert 1 / 20 < ratio < 20, (
        f"triad {peaks.bandwidth / 1e9:.1f} GB/s vs numpy copy {copy_bw / 1e9:.1f} GB/s on the same array "
        "size: one of them counts bytes or time wrongly"
    )
    # the triad does 2 FLOP per 24 bytes, so it is memory-bound at bandwidth / 12 FLOP/s;
    # a GEMM reuses each element n times and must run at least 10x faster than that
    triad_flops = peaks.bandwidth * 2 / 24
    assert peaks.flops["float32"] > 10 * triad_flops and peaks.flops["float64"] > 10 * triad_flops


@pytest.mark.skipif(has_cuda(), reason="checks the message shown without a GPU")
def test_cuda_without_gpu_says_what_to_do():
    with pytest.raises(RuntimeError, match="device='cpu'"):
        ceilings.measure_gemm_flops("float32", device="cuda")
    with pytest.raises(RuntimeError, match="device='cpu'"):
        ceilings.measure_bandwidth(device="cuda")


@pytest.mark.skipif(not has_cuda(), reason="needs a CUDA GPU")
def test_real_gpu_measurement_in_fast_mode(monkeypatch):
    monkeypatch.setenv("HPML_FAST", "1")
    flops, source = ceilings.measure_gemm_flops("float32", device="cuda")
    bandwidth, bw_source = ceilings.measure_bandwidth(device="cuda")
    assert math.isfinite(flops) and flops > 1e10 and source.startswith("GEMM 4096^3 torch cuda")
    assert math.isfinite(bandwidth) and bandwidth > 1e9 and bw_source.startswith("triad torch cuda")


def test_the_roofline_bound_is_not_public():
    # lab01 grades attainable_gflops and is_memory_bound: the helper students import must not compute them
    import hpml_lab_utils

    for name in ("attainable", "ridge_point"):
        assert not hasattr(roofline, name) and not hasattr(hpml_lab_utils, name)
        assert not hasattr(Peaks, name)
