"""Answer key of course/week08_pruning_sparsity.ipynb: question id -> the answer, recomputed.

Read by autograder.classroom.quiz_bank.answer_key() (generate-quiz) and tests/notebooks/test_course_quizzes.py,
which checks every digest stored in the notebook against ``digest(KEYS[id]())``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any


def _nm_zero_share(n: int, m: int) -> float:
    """N:M keeps n of every m weights: the rest, 1 - n/m, are zero."""
    return 1 - n / m


def _nm_compression(n: int, m: int, value_bits: int) -> float:
    """Dense bits per group (m * value_bits) over sparse bits (n values, each with a ceil(log2 m)-bit index)."""
    index_bits = math.ceil(math.log2(m))
    return m * value_bits / (n * (value_bits + index_bits))


def _low_rank_fraction(rows: int, cols: int, rank: int) -> float:
    """Factors m x r and r x n hold r(m + n) parameters against m n."""
    return rank * (rows + cols) / (rows * cols)


def _eckart_young_error(singular_values: list[float], rank: int) -> float:
    """||W - W_r||_F / ||W||_F = sqrt(sum of discarded sigma^2 / sum of all sigma^2)."""
    squares = [s * s for s in singular_values]
    return math.sqrt(sum(squares[rank:]) / sum(squares))


KEYS: dict[str, Callable[[], Any]] = {
    "w08_nm_zeros": lambda: _nm_zero_share(1, 4),
    "w08_nm_storage": lambda: _nm_compression(2, 4, 16),
    "w08_lowrank_params": lambda: _low_rank_fraction(512, 1024, 64),
    "w08_lowrank_error": lambda: _eckart_young_error([4, 2, 1, 0.5], 2),
    # zeros in a dense kernel are multiplied like any number; only a smaller shape does less work
    "w08_speed": lambda: "50% of output channels removed and the layers rebuilt narrower",
    # the course notes: "sensitivity analysis might not be optimal because of ... interactions"
    "w08_sensitivity": lambda: "the scan ignores how pruning several layers at once interacts",
}
