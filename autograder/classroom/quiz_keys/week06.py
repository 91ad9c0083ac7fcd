"""Answer key of course/week06_memory_hierarchy.ipynb: each answer recomputed from the data in its question.

Read by autograder.classroom.quiz_bank.answer_key() (generate-quiz) and tests/notebooks/test_course_quizzes.py, which checks every stored digest against these answers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hpml_lab_utils import ptx


def _tiled_global_reads(n: int, tile: int) -> int:
    # (n / tile)^2 blocks, each loads n / tile pairs of tile x tile tiles of A and B
    blocks, phases = (n // tile) ** 2, n // tile
    return blocks * phases * 2 * tile * tile


def _sectors_touched(stride_elements: int, element_bytes: int = 4, warp: int = 32, sector_bytes: int = 32) -> int:
    addresses = [t * stride_elements * element_bytes for t in range(warp)]
    return len({a // sector_bytes for a in addresses})


def _pipelined_ms(chunks: int, h2d_ms: float, kernel_ms: float, d2h_ms: float) -> float:
    # three engines (copy in, compute, copy out); chunk c may use an engine once the engine and its previous stage are done
    free = [0.0, 0.0, 0.0]
    for _ in range(chunks):
        ready = 0.0
        for engine, cost in enumerate((h2d_ms, kernel_ms, d2h_ms)):
            start = max(ready, free[engine])
            free[engine] = ready = start + cost
    return max(free)


KEYS: dict[str, Callable[[], Any]] = {
    "w06_tiled_reads": lambda: _tiled_global_reads(1024, 16),
    "w06_sectors": lambda: _sectors_touched(4),
    "w06_shared_bytes": lambda: 2 * 32 * 32 * 4,  # one tile of A and one of B, float32
    "w06_occupancy": lambda: ptx.occupancy(256, 40).fraction,  # NVIDIA's calculator's rule
    "w06_streams": lambda: _pipelined_ms(6, 2.0, 3.0, 2.0),
    "w06_coalesced": lambda: "thread t reads A[i, t] (along a row)",
    "w06_uvm": lambda: (
        "Its pages fault on the GPU and migrate there on demand, so the first kernel pays for the transfer"
    ),
    "w06_cudnn_benchmark": lambda: (
        "For each new input shape it times several convolution algorithms and keeps the fastest"
    ),
}
