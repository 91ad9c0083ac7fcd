"""Answer key of course/week13_nas.ipynb: question id -> the answer, recomputed.

Read by autograder.classroom.quiz_bank.answer_key() (generate-quiz) and tests/notebooks/test_course_quizzes.py,
which checks every digest stored in the notebook against ``digest(KEYS[id]())``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _space_size(stages: int, depths: list[int], widths: list[int], kernels: list[int]) -> int:
    """|S| = (|depths| x |widths| x |kernels|) ** stages."""
    return (len(depths) * len(widths) * len(kernels)) ** stages


def _conv_mmacs(side_out: int, c_in: int, c_out: int, k: int) -> float:
    """MACs = Ho Wo Co Ci k^2, in millions."""
    return side_out * side_out * c_out * c_in * k * k / 1e6


def _depthwise_separable_fraction(c_in: int, c_out: int, k: int, side: int = 1) -> float:
    """(depthwise Ho Wo Ci k^2 + pointwise Ho Wo Ci Co) / standard Ho Wo Co Ci k^2 = 1/Co + 1/k^2."""
    depthwise = side * side * c_in * k * k
    pointwise = side * side * c_in * c_out
    return (depthwise + pointwise) / (side * side * c_out * c_in * k * k)


def _random_hit(top_fraction: float, samples: int) -> float:
    """P(at least one of N uniform samples in the top q) = 1 - (1 - q)^N."""
    return 1 - (1 - top_fraction) ** samples


def _linear_predict(points: list[tuple[float, float]], x: float) -> float:
    """The line through two (MMACs, ms) points, evaluated at x."""
    (x1, y1), (x2, y2) = points
    a = (y2 - y1) / (x2 - x1)
    return a * x + (y1 - a * x1)


def _not_on_pareto_front() -> str:
    networks = {  # option text -> (accuracy, latency ms)
        "A: 90% accuracy, 8 ms": (0.90, 8.0),
        "B: 88% accuracy, 5 ms": (0.88, 5.0),
        "C: 86% accuracy, 6 ms": (0.86, 6.0),
        "D: 80% accuracy, 2 ms": (0.80, 2.0),
    }

    def dominated(acc: float, lat: float) -> bool:
        return any(a >= acc and t <= lat and (a > acc or t < lat) for a, t in networks.values())

    off = [name for name, (acc, lat) in networks.items() if dominated(acc, lat)]
    assert len(off) == 1
    return off[0]


KEYS: dict[str, Callable[[], Any]] = {
    "w13_space_size": lambda: _space_size(4, [1, 2, 3, 4], [16, 32, 48, 64], [3, 5, 7]),
    "w13_conv_macs": lambda: _conv_mmacs(56, 64, 128, 3),
    "w13_depthwise_ratio": lambda: _depthwise_separable_fraction(64, 128, 3, side=56),
    "w13_random_hit": lambda: _random_hit(0.01, 100),
    "w13_linear_predictor": lambda: _linear_predict([(10, 2.0), (30, 4.0)], 50),
    "w13_pareto": _not_on_pareto_front,
    "w13_constraint": lambda: (
        "MACs ignore per-layer overheads and memory traffic, so two networks with equal MACs "
        "can differ in latency on the target device"
    ),
}
