"""Answer key of course/week09_quantization.ipynb: question id -> the answer, recomputed.

Read by autograder.classroom.quiz_bank.answer_key() (generate-quiz) and tests/notebooks/test_course_quizzes.py,
which checks every digest stored in the notebook against ``digest(KEYS[id]())``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _asymmetric_scale(x_min: float, x_max: float, q_min: int, q_max: int) -> float:
    """s = (x_max - x_min) / (q_max - q_min)."""
    return (x_max - x_min) / (q_max - q_min)


def _zero_point(x_min: float, x_max: float, q_min: int, q_max: int) -> int:
    """z = round(q_min - x_min / s)."""
    return round(q_min - x_min / _asymmetric_scale(x_min, x_max, q_min, q_max))


def _symmetric_dequantized(x: float, max_abs: float, q_max: int) -> float:
    """s = max|x| / q_max, q = clip(round(x / s)), x_hat = s q."""
    s = max_abs / q_max
    q = max(-q_max, min(q_max, round(x / s)))
    return s * q


def _float_max(exponent_bits: int, mantissa_bits: int) -> float:
    """(2 - 2^-m) * 2^(e_max - bias) with the all-ones exponent reserved for inf/NaN."""
    bias = 2 ** (exponent_bits - 1) - 1
    e_max = 2**exponent_bits - 2
    return (2 - 2.0**-mantissa_bits) * 2.0 ** (e_max - bias)


def _per_channel_compression(rows: int, cols: int, bits: int, scale_bits: int = 32) -> float:
    """FP32 bits over (weights at `bits` + one scale per output channel)."""
    return rows * cols * 32 / (rows * cols * bits + rows * scale_bits)


KEYS: dict[str, Callable[[], Any]] = {
    "w09_scale": lambda: _asymmetric_scale(-1, 3, 0, 255),
    "w09_zero_point": lambda: _zero_point(-1, 3, 0, 255),
    "w09_symmetric_value": lambda: _symmetric_dequantized(1.1, 2.8, 7),
    "w09_fp16_max": lambda: _float_max(5, 10),
    "w09_per_channel_size": lambda: _per_channel_compression(512, 512, 4),
    # BF16: 8 exponent bits like FP32, 7 mantissa bits; FP16: 5 and 10
    "w09_bf16": lambda: "BF16 has FP32's exponent range with fewer mantissa bits",
    "w09_dynamic": lambda: "computed from each input at run time",
}
