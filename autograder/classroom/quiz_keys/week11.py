"""Answer key of course/week11_efficient_transformers.ipynb: question id -> the answer, recomputed.

Read by autograder.classroom.quiz_bank.answer_key() (generate-quiz) and tests/notebooks/test_course_quizzes.py,
which checks every digest stored in the notebook against ``digest(KEYS[id]())``. Llama 2 70B's head counts are from Touvron et al. 2023 and its released config,
as in the notebook's table.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any


def _kv_cache_bytes(layers: int, kv_heads: int, head_dim: int, seq: int, batch: int, bytes_per: int) -> int:
    """2 (key and value) x layers x kv heads x head dim x tokens x batch x bytes per number."""
    return 2 * layers * kv_heads * head_dim * seq * batch * bytes_per


def _gqa_factor(query_heads: int, kv_heads: int) -> float:
    """KV cache with one kv head per query head over the cache with shared (grouped) kv heads."""
    return _kv_cache_bytes(1, query_heads, 1, 1, 1, 1) / _kv_cache_bytes(1, kv_heads, 1, 1, 1, 1)


def _online_softmax_rescale(m_old: float, m_new: float) -> float:
    """Factor applied to the running sum and output when the running max moves: exp(m_old - m_new)."""
    return math.exp(m_old - m_new)


def _lora_fraction(d_in: int, d_out: int, rank: int) -> float:
    """r (d_in + d_out) trainable numbers over the d_in d_out of the frozen matrix."""
    return rank * (d_in + d_out) / (d_in * d_out)


def _attention_matrix_gib(heads: int, seq: int, bytes_per: int) -> float:
    """P is seq x seq per head."""
    return heads * seq * seq * bytes_per / 2**30


KEYS: dict[str, Callable[[], Any]] = {
    "w11_kv_cache_gb": lambda: _kv_cache_bytes(32, 32, 128, 2048, 8, 2) / 1e9,
    "w11_gqa_factor": lambda: _gqa_factor(64, 8),
    "w11_online_rescale": lambda: _online_softmax_rescale(2.0, 5.0),
    "w11_lora_fraction": lambda: _lora_fraction(4096, 4096, 8),
    "w11_attention_matrix_gib": lambda: _attention_matrix_gib(32, 8192, 2),
    "w11_moe_active": lambda: 2 / 8,  # top-k of E experts: k / E of the expert parameters per token
    "w11_kv_saves": lambda: "Recomputing the keys and values of all earlier tokens at every step",
}
