"""Answer key of course/week02_performance_methodology.ipynb: question id -> the answer, recomputed.

Read by autograder.classroom.quiz_bank.answer_key() (generate-quiz) and tests/notebooks/test_course_quizzes.py, which
checks every digest stored in the notebook against ``digest(KEYS[id]())``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any


def _harmonic_mean_rate(work: float, times: list[float]) -> float:
    rates = [work / t for t in times]
    return len(rates) / sum(1 / r for r in rates)


def _geometric_mean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def _w02_stencil() -> str:
    # Quiz 1, question 4: 7-point stencil then new *= -8.15, double precision, every array reference from DRAM.
    flops = 6 + 1 + 1  # six adds, the multiply by -6.0, the multiply by -8.15
    loads, stores = 7, 1  # old[ijk] and its six neighbours; new[ijk] (its second use stays in a register)
    ai = flops / ((loads + stores) * 8)
    ridge = 2 * 81.3e9 / 51.2e9  # 2 cores x 81.3 GFLOP/s over 51.2 GB/s
    bound = "memory-bound" if ai < ridge else "compute-bound"
    return f"A.I. is {ai:.3g} FLOP/byte and it is {bound}"


def _amdahl_required_speedup(fraction: float, total: float, target: float) -> float:
    untouched = (1 - fraction) * total
    return fraction * total / (target - untouched)


KEYS: dict[str, Callable[[], Any]] = {
    "w02_strong_scaling": lambda: "False",
    "w02_harmonic": lambda: _harmonic_mean_rate(10_000, [12, 13, 10, 12.5, 11, 11.25, 10.25, 14, 13.75, 14.25]),
    "w02_geomean": lambda: _geometric_mean([5, 3, 7.5, 2, 15, 1, 3, 5, 6, 2.5]),
    "w02_stencil": _w02_stencil,
    "w02_amdahl_target": lambda: _amdahl_required_speedup(0.5, 15, 9),
    "w02_time_diff": lambda: ((2372 + 4) - 2376) / 1000,  # CPU time (user + sys) minus real, from ms
    "w02_weak_scaling": lambda: "weak",
    "w02_blocking_simd": lambda: (
        "Cache blocking can raise arithmetic intensity; SIMD raises FLOP/s at the same intensity"
    ),
}
