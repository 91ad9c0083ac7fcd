"""Answer key of course/week07_distributed_training.ipynb: each answer recomputed from the data in its question.

Read by autograder.classroom.quiz_bank.answer_key() (generate-quiz) and tests/notebooks/test_course_quizzes.py, which checks every stored digest against these answers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _ring_sent_per_process(n: float, p: int) -> float:
    # reduce-scatter and all-gather: P - 1 steps each, one chunk of N / P per step
    return 2 * (p - 1) * n / p


def _server_link_traffic(n: float, p: int) -> float:
    # one of the P processes is the server: P - 1 gradients in, P - 1 parameter copies out
    return n * (p - 1) + n * (p - 1)


def _gpipe_bubble(stages: int, micro_batches: int) -> float:
    return (stages - 1) / (micro_batches + stages - 1)


def _sync_busy_share(step_times: list[float]) -> float:
    # every worker waits for the slowest: busy time over workers x the step's wall time
    return sum(step_times) / (len(step_times) * max(step_times))


def _bus_bandwidth_gbs(nbytes: float, seconds: float, p: int) -> float:
    return nbytes / seconds * 2 * (p - 1) / p / 1e9


KEYS: dict[str, Callable[[], Any]] = {
    "w07_ring_per_process": lambda: _ring_sent_per_process(1e9, 8),
    "w07_ps_link": lambda: _server_link_traffic(1e9, 8),
    "w07_ring_steps": lambda: 2 * (16 - 1),
    "w07_bubble": lambda: _gpipe_bubble(4, 12),
    "w07_sync_busy": lambda: _sync_busy_share([1.0] * 7 + [3.0]),
    "w07_staleness": lambda: f"about {16 - 1} updates",  # the other 15 workers each push one gradient meanwhile
    "w07_pipeline": lambda: "pipeline parallelism",
    "w07_busbw": lambda: _bus_bandwidth_gbs(400e6, 0.2, 4),
}
