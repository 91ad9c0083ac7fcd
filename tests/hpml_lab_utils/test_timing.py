"""hpml_lab_utils.timing: Timer, bench, speedup.

Timer checks use lower bounds (sleep never returns early) and ratios; no test
asserts an absolute speed.
"""

import time

from hpml_lab_utils import timing
from hpml_lab_utils.timing import Stats, Timer, bench, speedup, speedup_ratios

import numpy as np
import pytest


def busy_sum(n: int) -> int:
    total = 0
    for i in range(n):
        total += i
    return total


def test_timer_context_manager_measures_a_sleep():
    with Timer(use_cuda=False) as t:
        time.sleep(0.02)
    assert t.elapsed_s >= 0.02
    assert t.elapsed_ms == pytest.approx(t.elapsed_s * 1e3)


def test_timer_ratio_of_two_sleeps():
    with Timer(use_cuda=False) as short:
        time.sleep(0.01)
    with Timer(use_cuda=False) as long:
        time.sleep(0.05)
    assert 2.0 < long.elapsed_s / short.elapsed_s < 6.0


def test_timer_as_decorator_records_every_call():
    timer = Timer(use_cuda=False)

    @timer
    def work(n):
        return busy_sum(n)

    assert work(1000) == sum(range(1000))
    work(10)
    assert len(timer.times_s) == 2
    assert all(t > 0 for t in timer.times_s)
    assert work.timer is timer


def test_timer_never_uses_cuda_on_a_cpu_build():
    import torch

    if torch.cuda.is_available():
        pytest.skip("GPU present")
    assert Timer().use_cuda is False


def test_bench_discards_slow_first_call():
    calls = []

    def first_call_slow():
        calls.append(1)
        time.sleep(0.1 if len(calls) == 1 else 0.001)

    stats = bench(first_call_slow, warmup_s=0.0, budget_s=0.02, min_repeats=5)
    assert stats.warmup_calls >= 1
    assert stats.n >= 5
    assert stats.median_s < 0.05  # the 0.1 s warm-up call is not among the samples
    assert stats.min_s <= stats.median_s <= stats.samples_s.max()
    assert len(calls) == stats.n + stats.warmup_calls


def test_bench_passes_arguments_and_names_result():
    stats = bench(busy_sum, 1000, name="loop", budget_s=0.02)
    assert stats.name == "loop"
    assert "median" in str(stats) and "IQR" in str(stats)
    assert "<table>" in stats._repr_html_()


def test_bench_warns_on_noisy_timings():
    state = {"i": 0}

    def erratic():
        state["i"] += 1
        time.sleep(0.001 if state["i"] % 2 else 0.006)

    with pytest.warns(UserWarning, match="noisy"):
        stats = bench(erratic, warmup_s=0.0, budget_s=0.05, min_repeats=8)
    assert stats.noisy


def test_stats_summary_values():
    stats = Stats(name="s", samples_s=np.array([1.0, 2.0, 3.0, 4.0, 100.0]))
    assert stats.median_s == 3.0
    assert stats.min_s == 1.0
    assert stats.mean_s == 22.0
    assert stats.iqr_s == 2.0  # 75th percentile 4, 25th percentile 2
    assert stats.relative_iqr == pytest.approx(2 / 3)
    assert stats.noisy


def test_speedup_is_a_ratio_near_the_work_ratio():
    ratio = speedup(busy_sum, busy_sum, rounds=5, min_time_s=0.01, n=2000)
    assert 0.5 < ratio < 2.0  # same function: about 1
    ratios = speedup_ratios(lambda: busy_sum(2_000), lambda: busy_sum(20_000), rounds=5, min_time_s=0.01)
    assert len(ratios) == 5
    assert 4.0 < float(np.median(ratios)) < 25.0  # 10x the work


def test_speedup_below_one_when_fast_fn_is_slower():
    assert speedup(lambda: busy_sum(20_000), lambda: busy_sum(2_000), rounds=3, min_time_s=0.01) < 0.5


def test_torch_cuda_not_touched_when_torch_not_imported(monkeypatch):
    import sys

    monkeypatch.delitem(sys.modules, "torch", raising=False)
    assert timing._torch_cuda_available() is False


def test_quiet_bench_returns_stats_without_the_noise_warning(recwarn):
    import time

    calls = []

    def jittery():
        calls.append(1)
        time.sleep(0.002 if len(calls) % 3 else 0.02)  # every third call 10x slower: noisy

    stats = timing.quiet_bench(jittery, warmup_s=0.0, budget_s=0.05, min_repeats=9)
    assert stats.n >= 9 and stats.min_s >= 0.002
    assert not [w for w in recwarn if "noisy" in str(w.message)]
