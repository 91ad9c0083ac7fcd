"""Course-wide settings read from the environment, in one place.

``HPML_FAST=1`` (set by CI and by the autograder) shrinks every problem size so a
notebook runs in seconds; without it the default sizes run on a laptop CPU in a
few minutes. ``HPML_FORCE_CPU=1`` makes a machine with a GPU behave as one
without: Numba's CUDA simulator, torch on ``"cpu"``, wall-clock timers.
Notebooks never read the variables themselves: they call :func:`fast_mode`,
:func:`pick` or ask :mod:`hpml_lab_utils.device`.
"""

from __future__ import annotations

import os
import random
from typing import TypeVar

import numpy as np

T = TypeVar("T")

_TRUE_WORDS = {"1", "true", "yes", "on"}


def fast_mode() -> bool:
    """True when ``HPML_FAST`` is set to 1/true/yes/on (case-insensitive)."""
    return os.environ.get("HPML_FAST", "").strip().lower() in _TRUE_WORDS


def cpu_forced() -> bool:
    """True when ``HPML_FORCE_CPU`` is set to 1/true/yes/on: use no GPU even if there is one."""
    return os.environ.get("HPML_FORCE_CPU", "").strip().lower() in _TRUE_WORDS


def grading() -> bool:
    """True inside an nbgrader kernel (``NBGRADER_EXECUTION`` is set by nbgrader)."""
    return bool(os.environ.get("NBGRADER_EXECUTION"))


def pick(default: T, fast: T) -> T:
    """Return ``fast`` in fast mode, ``default`` otherwise.

    Example: ``n = pick(default=10_000_000, fast=100_000)``.
    """
    return fast if fast_mode() else default


def seed_everything(seed: int = 0) -> None:
    """Seed Python's ``random``, NumPy's global generator and torch (if imported).

    Torch is only seeded when it is already imported, so calling this never pays
    torch's import time.
    """
    import sys

    random.seed(seed)
    np.random.seed(seed)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(seed)
