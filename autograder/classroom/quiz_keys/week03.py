"""Answer key of course/week03_pytorch_basics.ipynb: question id -> the answer, recomputed.

Read by autograder.classroom.quiz_bank.answer_key() (generate-quiz) and tests/notebooks/test_course_quizzes.py, which
checks every digest stored in the notebook against ``digest(KEYS[id]())``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any


def _adam_first_step(lr: float, grad: float, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8) -> float:
    m = (1 - beta1) * grad
    v = (1 - beta2) * grad**2
    m_hat, v_hat = m / (1 - beta1), v / (1 - beta2)
    return lr * m_hat / (math.sqrt(v_hat) + eps)


def _adagrad_step(lr: float, grad: float, steps: int, eps: float = 1e-10) -> float:
    return lr * grad / (math.sqrt(steps * grad**2) + eps)


def _momentum_terminal_factor(gamma: float, steps: int = 10_000) -> float:
    v = 0.0
    for _ in range(steps):  # v_t = gamma v_{t-1} + g with g = 1: the step tends to g / (1 - gamma)
        v = gamma * v + 1.0
    return v


KEYS: dict[str, Callable[[], Any]] = {
    "w03_autograd_accumulate": lambda: 2 * 4.0,  # two backward() calls of d(w*4+1)/dw = 4, accumulated
    "w03_adam_first_step": lambda: _adam_first_step(lr=0.01, grad=250.0),
    "w03_adagrad_step": lambda: _adagrad_step(lr=1.0, grad=3.0, steps=100),
    "w03_momentum": lambda: _momentum_terminal_factor(0.9),
    "w03_loader_batches": lambda: math.ceil(1000 / 64),
    "w03_start_method": lambda: "fork",
    "w03_pinned": lambda: (
        "Page-locked host memory that the GPU can copy from directly, so copies are faster and can be asynchronous"
    ),
}
