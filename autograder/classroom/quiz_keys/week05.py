"""Answer key of course/week05_gpu_cuda_model.ipynb: question id -> the answer, recomputed.

Read by autograder.classroom.quiz_bank.answer_key() (generate-quiz) and tests/notebooks/test_course_quizzes.py,
which checks every digest stored in the notebook against ``digest(KEYS[id]())``. Datasheet numbers (SM counts, FP32 cores per SM) are those of the notebook's
table, with its sources: NVIDIA's V100 (2017), A100 (2020) and H100 (2022) architecture whitepapers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

WARP_SIZE = 32  # every NVIDIA GPU so far (CUDA C++ Programming Guide, compute capabilities table)


def _global_index(block_idx: int, block_dim: int, thread_idx: int) -> int:
    """g = blockIdx.x * blockDim.x + threadIdx.x."""
    return block_idx * block_dim + thread_idx


def _blocks_for(n: int, threads_per_block: int) -> int:
    """One thread per element: ceil(n / threads_per_block) blocks."""
    return math.ceil(n / threads_per_block)


def _idle_threads(n: int, threads_per_block: int) -> int:
    """Threads launched beyond the last element: blocks * threads - n."""
    return _blocks_for(n, threads_per_block) * threads_per_block - n


def _warps_per_block(threads_per_block: int) -> int:
    return math.ceil(threads_per_block / WARP_SIZE)


def _block_of_element(row: int, col: int, block_x: int, block_y: int) -> str:
    """2-D launch, x along columns: blockIdx = (col // block_x, row // block_y)."""
    return f"({col // block_x}, {row // block_y})"


def _cuda_cores(sms: int, fp32_per_sm: int) -> int:
    return sms * fp32_per_sm


KEYS: dict[str, Callable[[], Any]] = {
    "w05_global_index": lambda: _global_index(3, 128, 5),
    "w05_blocks": lambda: _blocks_for(1_000_000, 256),
    "w05_idle_threads": lambda: _idle_threads(1_000_000, 256),
    "w05_warps": lambda: _warps_per_block(100),
    "w05_block_2d": lambda: _block_of_element(37, 70, 16, 16),
    "w05_cuda_cores": lambda: _cuda_cores(108, 64),  # A100: 108 SMs x 64 FP32 cores
    "w05_simulator": lambda: (
        "Whether the kernel's results are right (indexing, bounds, barriers); nothing about its speed"
    ),
}
