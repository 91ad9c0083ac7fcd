"""Answer key of course/week14_analog_in_memory.ipynb: question id -> the answer, recomputed.

Read by autograder.classroom.quiz_bank.answer_key() (generate-quiz) and tests/notebooks/test_course_quizzes.py,
which checks every digest stored in the notebook against ``digest(KEYS[id]())``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _drift_factor(t_s: float, t0_s: float, nu: float) -> float:
    """G(t) / G0 = (t / t0)^(-nu)."""
    return (t_s / t0_s) ** (-nu)


def _cell_read_energy_fj(volts: float, siemens: float, seconds: float) -> float:
    """Energy of one cell during a read: V^2 G t (Joule), in fJ."""
    return volts**2 * siemens * seconds * 1e15


KEYS: dict[str, Callable[[], Any]] = {
    "w14_drift": lambda: _drift_factor(1e6, 1.0, 0.05),
    "w14_cell_energy": lambda: _cell_read_energy_fj(0.2, 10e-6, 10e-9),
    # one ADC conversion per column serves every row of that column
    "w14_adc_share": lambda: 2.0 / 256,
    "w14_differential": lambda: "conductances cannot be negative, so a signed weight is the difference G+ - G-",
    "w14_physics": lambda: "Ohm's law multiplies (I = G V) and Kirchhoff's current law adds the currents on a wire",
}
