"""Answer key of course/week12_efficient_vision.ipynb: question id -> the answer, recomputed.

Read by autograder.classroom.quiz_bank.answer_key() (generate-quiz) and tests/notebooks/test_course_quizzes.py,
which checks every digest stored in the notebook against ``digest(KEYS[id]())``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _conv_macs(h_out: int, w_out: int, c_in: int, c_out: int, k: int) -> int:
    """Standard convolution: H_out W_out C_out C_in k^2 multiply-accumulates."""
    return h_out * w_out * c_out * c_in * k * k


def _separable_macs(h_out: int, w_out: int, c_in: int, c_out: int, k: int) -> int:
    """Depthwise (H_out W_out C_in k^2) + pointwise (H_out W_out C_in C_out) = H_out W_out C_in (k^2 + C_out)."""
    return h_out * w_out * c_in * (k * k + c_out)


def _bottleneck_weights(c: int, mid: int, k: int = 3) -> int:
    """1x1 (c -> mid) + kxk (mid -> mid) + 1x1 (mid -> c), no biases."""
    return c * mid + mid * mid * k * k + mid * c


def _patch_embedding_params(p: int, channels: int, d: int) -> int:
    """A linear map from a flattened P x P x C patch to d, with bias: P^2 C d + d."""
    return p * p * channels * d + d


KEYS: dict[str, Callable[[], Any]] = {
    "w12_conv_macs": lambda: _conv_macs(56, 56, 64, 128, 3),
    "w12_separable_ratio": lambda: _separable_macs(56, 56, 64, 128, 3) / _conv_macs(56, 56, 64, 128, 3),
    "w12_bottleneck": lambda: 2 * 256 * 256 * 9 / _bottleneck_weights(256, 64),
    "w12_vit_tokens": lambda: (224 * 224) // (16 * 16),
    "w12_patch_params": lambda: _patch_embedding_params(16, 3, 768),
    # tokens N = HW / P^2 grow 4x when P halves; the score matrix has N^2 entries: 16x
    "w12_attention_patch": lambda: "16 times",
    "w12_depthwise_slow": lambda: "it does few MACs per byte it moves, so it is limited by memory, not arithmetic",
}
