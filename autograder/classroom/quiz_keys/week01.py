"""Answer key of course/week01_hpc_and_ml.ipynb: question id -> the answer, recomputed.

Read by autograder.classroom.quiz_bank.answer_key() (generate-quiz) and tests/notebooks/test_course_quizzes.py, which
checks every digest stored in the notebook against ``digest(KEYS[id]())``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _peak_flops(cores: float, ghz: float, flops_per_cycle: float) -> float:
    return cores * ghz * 1e9 * flops_per_cycle


def _w01_peak_claims() -> str:
    # Quiz 1, question 7: 8 cores, 3.5 GHz, 32 DP FLOP/cycle; SP does twice the FLOP per cycle.
    dp, sp = 32, 64
    claims = {  # statement -> (claimed GFLOP/s, true GFLOP/s)
        "Its peak is 896 GFLOP/s in double precision": (896, _peak_flops(8, 3.5, dp) / 1e9),
        "Switching to single precision raises the peak to about 1.8 TFLOP/s": (1800, _peak_flops(8, 3.5, sp) / 1e9),
        "Its peak is 428 GFLOP/s in single precision": (428, _peak_flops(8, 3.5, sp) / 1e9),
        "At a reduced clock of 2.5 GHz its double-precision peak drops to 640 GFLOP/s": (
            640,
            _peak_flops(8, 2.5, dp) / 1e9,
        ),
    }
    false = [text for text, (claimed, true) in claims.items() if abs(claimed - true) / true > 0.05]
    assert len(false) == 1
    return false[0]


KEYS: dict[str, Callable[[], Any]] = {
    "w01_peak_dp": lambda: _peak_flops(8, 3.5, 32) / 1e9,
    "w01_peak_claims": _w01_peak_claims,
    "w01_fugaku_rpeak": lambda: _peak_flops(7_630_848, 2.2, (512 // 64) * 2 * 2) / 1e15,
    "w01_jedi_power": lambda: 4.50e15 / (72.733e9) / 1e3,
    "w01_v100_balance": lambda: 7.8e12 / 900e9,
    "w01_ai_subsets": lambda: "Deep Learning ⊆ Machine Learning ⊆ Artificial Intelligence",
    "w01_hpc_properties": lambda: "Sequentiality",
    "w01_partition": lambda: "Compute nodes are configured differently from service and I/O nodes",
}
