"""Answer key of course/week04_python_jit_profiling.ipynb: question id -> the answer, recomputed.

Read by autograder.classroom.quiz_bank.answer_key() (generate-quiz) and tests/notebooks/test_course_quizzes.py,
which checks every digest stored in the notebook against ``digest(KEYS[id]())``. Answers that depend on CPython (opcode names, folding) are recomputed with
``dis`` on the interpreter that runs the test, as the notebook does.
"""

from __future__ import annotations

import dis
import math
from collections.abc import Callable
from typing import Any


def _binary_ops_executed(body: str) -> int:
    """How many binary-operator instructions (BINARY_OP on 3.11+) a one-line function body executes."""
    namespace: dict[str, Any] = {}
    exec(f"def f(x):\n    return {body}\n", namespace)
    return sum(i.opname.startswith("BINARY") for i in dis.get_instructions(namespace["f"]))


def _local_read_opcode() -> str:
    """The opcode CPython uses to read a function's local variable (LOAD_FAST; 3.14 adds a _BORROW variant)."""

    def f(a):
        return a

    name = next(i.opname for i in dis.get_instructions(f) if i.argval == "a")
    return "LOAD_FAST" if name.startswith("LOAD_FAST") else name


def _amdahl(p: float, s: float) -> float:
    return 1 / ((1 - p) + p / s)


def _jit_break_even_calls(compile_s: float, python_s: float, jit_s: float) -> int:
    """Smallest number of calls N with compile_s + N * jit_s < N * python_s."""
    return math.floor(compile_s / (python_s - jit_s)) + 1


def _eager_over_fused_traffic() -> float:
    """y = sin(x) * cos(x) + x: bytes moved by four eager kernels over one fused kernel (elements read + written)."""
    eager = [
        ("sin(x)", 1, 1),  # reads x, writes t1
        ("cos(x)", 1, 1),  # reads x, writes t2
        ("t1 * t2", 2, 1),  # reads t1 and t2, writes t3
        ("t3 + x", 2, 1),  # reads t3 and x, writes y
    ]
    eager_elements = sum(reads + writes for _name, reads, writes in eager)
    fused_elements = 1 + 1  # reads x once, writes y once
    return eager_elements / fused_elements


KEYS: dict[str, Callable[[], Any]] = {
    "w04_fold_left_to_right": lambda: _binary_ops_executed("x * 60 * 60"),
    "w04_local_opcode": _local_read_opcode,
    "w04_amdahl_jit": lambda: _amdahl(0.6, 20),
    "w04_jit_break_even": lambda: _jit_break_even_calls(0.8, 50e-3, 0.5e-3),
    "w04_fusion_traffic": _eager_over_fused_traffic,
    "w04_profiler_kind": lambda: (
        "Deterministic (tracing): it sees every call and return, so its counts are exact and it slows every call down"
    ),
    "w04_graph_break": lambda: "Calling .item() on a tensor and branching on the Python number",
}
