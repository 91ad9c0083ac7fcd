"""Answer key of course/week10_distillation.ipynb: question id -> the answer, recomputed.

Read by autograder.classroom.quiz_bank.answer_key() (generate-quiz) and tests/notebooks/test_course_quizzes.py,
which checks every digest stored in the notebook against ``digest(KEYS[id]())``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any


def _softmax_t(logits: Sequence[float], temperature: float) -> list[float]:
    """q_i = exp(z_i / T) / sum_j exp(z_j / T)."""
    exps = [math.exp(z / temperature) for z in logits]
    return [e / sum(exps) for e in exps]


def _small_cnn_params(widths: Sequence[int], in_channels: int = 1, classes: int = 10) -> int:
    """Three 3x3 convs, out x (in x 9 + 1) each, then a linear layer classes x (widths[-1] + 1)."""
    total, prev = 0, in_channels
    for w in widths:
        total += w * (prev * 9 + 1)
        prev = w
    return total + classes * (prev + 1)


KEYS: dict[str, Callable[[], Any]] = {
    "w10_softmax_T": lambda: _softmax_t([2, 1, 0], 2)[0],
    # softmax(z / T) -> exp(0) / C for every class as T -> infinity
    "w10_T_limit": lambda: "the uniform distribution over the classes",
    "w10_T_squared": lambda: (
        "its gradients shrink like 1/T^2, and the factor keeps their size comparable across temperatures"
    ),
    "w10_feature": lambda: "feature-based",
    "w10_online": lambda: "online distillation",
    "w10_params_ratio": lambda: _small_cnn_params((16, 32, 64)) / _small_cnn_params((8, 16, 32)),
}
