"""Timers and micro-benchmarks that report honest statistics (weeks 1-2, lab01).

* :class:`Timer` times a block or a function. With a CUDA device it records CUDA
  events and synchronises, because kernel launches return before the GPU is done;
  on the CPU it reads ``time.perf_counter_ns``.
* :func:`bench` warms up for a time budget, repeats, and returns :class:`Stats`
  (median, IQR, min, mean, raw samples in seconds).
* :func:`speedup` interleaves two functions for several rounds and returns the
  median of the per-round ratios ``t_slow / t_fast``; ratio tests use it, never
  an absolute time.
"""

from __future__ import annotations

import functools
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .config import cpu_forced, pick

NOISY_IQR_FRACTION = 0.10  # warn when IQR / median exceeds this


def _torch_cuda_available() -> bool:
    """True when torch is already imported and sees a GPU (never touches torch.cuda otherwise) and the CPU is not forced."""
    torch = sys.modules.get("torch")
    if torch is None or cpu_forced():
        return False
    try:
        return bool(torch.cuda.is_available())
    except Exception:  # noqa: BLE001 - a broken CUDA install: fall back to CPU timing
        return False


class Timer:
    """Wall-clock timer: ``with Timer() as t: ...`` then ``t.elapsed_ms``.

    Also a decorator: ``@Timer()`` on a function records every call in
    ``timer.times_s``. ``use_cuda=None`` picks CUDA events when torch is
    imported and a GPU is available; ``False`` forces ``perf_counter_ns``.
    """

    def __init__(self, use_cuda: bool | None = None) -> None:
        self.use_cuda = _torch_cuda_available() if use_cuda is None else use_cuda
        self.elapsed_s: float = float("nan")
        self.times_s: list[float] = []
        self._start_ns = 0
        self._events: tuple[Any, Any] | None = None

    @property
    def elapsed_ms(self) -> float:
        """Last measured interval in milliseconds."""
        return self.elapsed_s * 1e3

    def __enter__(self) -> Timer:
        if self.use_cuda:
            import torch

            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            start.record()
            self._events = (start, end)
        else:
            self._start_ns = time.perf_counter_ns()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.use_cuda and self._events is not None:
            import torch

            start, end = self._events
            end.record()
            torch.cuda.synchronize()
            self.elapsed_s = start.elapsed_time(end) / 1e3  # elapsed_time is in ms
        else:
            self.elapsed_s = (time.perf_counter_ns() - self._start_ns) / 1e9
        self.times_s.append(self.elapsed_s)

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)

        timed.timer = self  # type: ignore[attr-defined]
        return timed


@dataclass
class Stats:
    """Summary of repeated timings, all in seconds."""

    name: str
    samples_s: np.ndarray = field(repr=False)
    warmup_calls: int = 0

    @property
    def n(self) -> int:
        return int(self.samples_s.size)

    @property
    def median_s(self) -> float:
        return float(np.median(self.samples_s))

    @property
    def mean_s(self) -> float:
        return float(np.mean(self.samples_s))

    @property
    def min_s(self) -> float:
        return float(np.min(self.samples_s))

    @property
    def iqr_s(self) -> float:
        """Interquartile range: 75th minus 25th percentile."""
        q75, q25 = np.percentile(self.samples_s, [75, 25])
        return float(q75 - q25)

    @property
    def relative_iqr(self) -> float:
        """IQR / median; above 0.10 the measurement is noisy."""
        return self.iqr_s / self.median_s if self.median_s > 0 else float("inf")

    @property
    def noisy(self) -> bool:
        return self.relative_iqr > NOISY_IQR_FRACTION

    def _rows(self) -> list[tuple[str, str]]:
        def fmt(seconds: float) -> str:
            for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
                if seconds >= scale:
                    return f"{seconds / scale:.3g} {unit}"
            return f"{seconds / 1e-9:.3g} ns"

        return [
            ("median", fmt(self.median_s)),
            ("IQR", f"{fmt(self.iqr_s)} ({self.relative_iqr:.0%} of median)"),
            ("min", fmt(self.min_s)),
            ("mean", fmt(self.mean_s)),
            ("repeats", f"{self.n} (after {self.warmup_calls} warm-up calls)"),
        ]

    def __str__(self) -> str:
        lines = [f"{self.name}:"] + [f"  {k:<8} {v}" for k, v in self._rows()]
        if self.noisy:
            lines.append("  warning: noisy (IQR > 10% of median)")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in self._rows())
        warn = "<p><b>noisy:</b> IQR above 10% of the median</p>" if self.noisy else ""
        return f"<table><caption>{self.name}</caption>{rows}</table>{warn}"


def _time_calls(fn: Callable[..., Any], args: tuple, kwargs: dict, calls: int, use_cuda: bool) -> float:
    """Seconds per call, averaged over ``calls`` back-to-back calls."""
    timer = Timer(use_cuda=use_cuda)
    with timer:
        for _ in range(calls):
            fn(*args, **kwargs)
    return timer.elapsed_s / calls


def _calls_to_fill(fn: Callable[..., Any], args: tuple, kwargs: dict, min_time_s: float, use_cuda: bool) -> int:
    """How many back-to-back calls last at least ``min_time_s`` (doubling search)."""
    calls = 1
    while True:
        per_call = _time_calls(fn, args, kwargs, calls, use_cuda)
        if per_call * calls >= min_time_s or calls >= 1 << 20:
            return calls
        calls = max(calls * 2, int(min_time_s / max(per_call, 1e-9)) + 1)


def bench(
    fn: Callable[..., Any],
    *args: Any,
    name: str | None = None,
    warmup_s: float | None = None,
    budget_s: float | None = None,
    min_repeats: int = 5,
    max_repeats: int = 1000,
    use_cuda: bool | None = None,
    **kwargs: Any,
) -> Stats:
    """Time ``fn(*args, **kwargs)``: warm up for ``warmup_s``, then repeat within ``budget_s``.

    Warm-up calls (at least one: it pays JIT compilation) are discarded. Each
    sample times one call. Default budgets: 0.2 s warm-up and 1 s of repeats,
    a quarter of that in fast mode. Warns when IQR / median > 10%.
    """
    warmup_s = pick(0.2, 0.05) if warmup_s is None else warmup_s
    budget_s = pick(1.0, 0.25) if budget_s is None else budget_s
    use_cuda = _torch_cuda_available() if use_cuda is None else use_cuda
    timer = Timer(use_cuda=use_cuda)

    warm_start = time.perf_counter()
    while not timer.times_s or time.perf_counter() - warm_start < warmup_s:
        with timer:
            fn(*args, **kwargs)
    warmup_calls = len(timer.times_s)
    # estimate the cost of one call from the warm-up, leaving out the first (compilation) call
    per_call = float(np.median(timer.times_s[1:] or timer.times_s))
    repeats = int(min(max_repeats, max(min_repeats, budget_s / max(per_call, 1e-9))))

    samples = np.empty(repeats)
    for i in range(repeats):
        with timer:
            fn(*args, **kwargs)
        samples[i] = timer.elapsed_s

    stats = Stats(name=name or getattr(fn, "__name__", "fn"), samples_s=samples, warmup_calls=warmup_calls)
    if stats.noisy:
        warnings.warn(
            f"{stats.name}: timings are noisy (IQR is {stats.relative_iqr:.0%} of the median); "
            "close other programs or raise budget_s.",
            stacklevel=2,
        )
    return stats


def quiet_bench(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Stats:
    """:func:`bench` without its "timings are noisy" warning.

    For figures reported as the best run (``Stats.min_s``: peaks, lecture
    measurements): on a shared machine other programs only ever slow a run
    down, so the warning would be noise. A median taken from the result is as
    noisy as ``Stats.relative_iqr`` says.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*timings are noisy")
        return bench(fn, *args, **kwargs)


def speedup_ratios(
    fast_fn: Callable[..., Any],
    slow_fn: Callable[..., Any],
    *args: Any,
    rounds: int = 7,
    min_time_s: float = 0.02,
    use_cuda: bool | None = None,
    **kwargs: Any,
) -> list[float]:
    """Per-round ratios ``t_slow / t_fast`` with the two functions interleaved.

    Both are called once first (JIT warm-up). Each round times enough
    back-to-back calls of each function to last ``min_time_s``; rounds alternate
    which function goes first, so drifting clocks hit both alike.
    """
    use_cuda = _torch_cuda_available() if use_cuda is None else use_cuda
    fast_fn(*args, **kwargs)
    slow_fn(*args, **kwargs)
    fast_calls = _calls_to_fill(fast_fn, args, kwargs, min_time_s, use_cuda)
    slow_calls = _calls_to_fill(slow_fn, args, kwargs, min_time_s, use_cuda)
    ratios = []
    for r in range(rounds):
        if r % 2 == 0:
            t_fast = _time_calls(fast_fn, args, kwargs, fast_calls, use_cuda)
            t_slow = _time_calls(slow_fn, args, kwargs, slow_calls, use_cuda)
        else:
            t_slow = _time_calls(slow_fn, args, kwargs, slow_calls, use_cuda)
            t_fast = _time_calls(fast_fn, args, kwargs, fast_calls, use_cuda)
        ratios.append(t_slow / max(t_fast, 1e-12))
    return ratios


def speedup(
    fast_fn: Callable[..., Any],
    slow_fn: Callable[..., Any],
    *args: Any,
    rounds: int = 7,
    min_time_s: float = 0.02,
    use_cuda: bool | None = None,
    **kwargs: Any,
) -> float:
    """Median over rounds of ``t_slow / t_fast`` (> 1 means ``fast_fn`` is faster).

    See :func:`speedup_ratios` for how the rounds are interleaved.
    """
    ratios = speedup_ratios(fast_fn, slow_fn, *args, rounds=rounds, min_time_s=min_time_s, use_cuda=use_cuda, **kwargs)
    return float(statistics.median(ratios))
