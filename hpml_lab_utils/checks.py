"""Helpers for the *visible* tests in lab notebooks: they say what was compared and how far off it was.

Hidden tests never use these (they carry their own reference); a visible test
that fails should teach, so each helper prints the inputs' shape, the expected
and received values and the error before raising ``AssertionError``.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, MutableMapping
from typing import Any

import numpy as np


def check_close(name: str, got: Any, expected: Any, rtol: float = 1e-6, atol: float = 0.0) -> None:
    """Assert ``|got - expected| <= atol + rtol * |expected|`` elementwise; print the outcome.

    Works for scalars and arrays. On failure the message gives the largest
    absolute and relative error and where it occurred.
    """
    got_arr = np.asarray(got, dtype=np.float64)
    exp_arr = np.asarray(expected, dtype=np.float64)
    if got_arr.shape != exp_arr.shape:
        raise AssertionError(f"{name}: expected shape {exp_arr.shape}, got shape {got_arr.shape}")
    if np.isnan(got_arr).any() and not np.isnan(exp_arr).any():
        raise AssertionError(f"{name}: result contains NaN")
    diff = np.abs(got_arr - exp_arr)
    allowed = atol + rtol * np.abs(exp_arr)
    bad = ~(diff <= allowed) & ~((got_arr == exp_arr) | (np.isnan(got_arr) & np.isnan(exp_arr)))
    if bad.any():
        where = np.unravel_index(int(np.argmax(np.where(bad, diff, -1.0))), diff.shape) if diff.ndim else ()
        g, e = got_arr[where], exp_arr[where]
        rel = abs(g - e) / abs(e) if e != 0 else math.inf
        at = f" at index {tuple(int(i) for i in where)}" if where else ""
        raise AssertionError(
            f"{name}: got {g:.6g}, expected {e:.6g}{at} "
            f"(abs error {abs(g - e):.3g}, rel error {rel:.3g}; allowed rtol={rtol:g}, atol={atol:g})"
        )
    print(f"ok  {name}: matches within rtol={rtol:g}, atol={atol:g}")


def check_equal(name: str, got: Any, expected: Any) -> None:
    """Assert ``got == expected`` exactly (for booleans, ints, strings); print the outcome."""
    if got != expected:
        raise AssertionError(f"{name}: got {got!r}, expected {expected!r}")
    print(f"ok  {name}: {got!r}")


def check_true(name: str, condition: bool, hint: str = "") -> None:
    """Assert a condition; on failure the message carries ``hint`` (what to look at next)."""
    if not condition:
        raise AssertionError(f"{name}: failed" + (f" ({hint})" if hint else ""))
    print(f"ok  {name}")


@contextlib.contextmanager
def graded_alone(namespace: MutableMapping[str, Any], replacements: dict[str, Any]) -> Iterator[None]:
    """Run a test cell with some of the notebook's names replaced, and put the originals back afterwards.

    A lab's test cell grades one piece; when that piece calls another graded piece
    (a cache calling the notebook's allocator), grading replaces the other piece
    with a reference, so one mistake costs the points of one piece. With no
    replacements (as when you run the notebook) the cell uses your own code. The
    originals are restored even when a check fails.
    """
    missing = object()
    saved = {name: namespace.get(name, missing) for name in replacements}
    namespace.update(replacements)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is missing:
                namespace.pop(name, None)
            else:
                namespace[name] = value
