"""The roofline drawn (week 2, lab01): measured roofs labelled with their source, kernel points, an explorer.

:func:`plot_roofline` returns the ``Axes``; :func:`explore` is the widget that
picks a roof and slides an arithmetic intensity. The model and the measured
peaks: :mod:`hpml_lab_utils.roofline`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .roofline import ROOF_SLACK, AboveRoofWarning, KernelPoint, Peaks, _attainable, _ridge_point

_DTYPE_LABELS = {"float64": "FP64", "float32": "FP32", "float16": "FP16", "bfloat16": "BF16"}

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
