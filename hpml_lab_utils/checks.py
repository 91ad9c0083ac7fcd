"""Helpers for the test cells of the labs: checks that say what was compared, and what every test cell needs.

The ``check_*`` helpers are for *visible* tests: a visible test that fails
should teach, so each prints the inputs' shape, the expected and received
values and the error before raising ``AssertionError``. Hidden tests record
results for the grader (:mod:`hpml_lab_utils.recorded`); they use the rest:
:func:`silence_stderr` (or :func:`silenced`) around a student's call,
:func:`graded_alone` to grade one piece at a time, :func:`optimizer_step_difference`
to run an optimizer step beside torch's, :func:`optimizer_trajectory` to run one alone.
The autograder's tamper guard watches this module: a test cell that finds one
of these replaced scores zero.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import sys
import warnings
from collections.abc import Callable, Iterator, MutableMapping, Sequence
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


@contextlib.contextmanager
def silence_stderr() -> Iterator[None]:
    """Nothing reaches stderr while the block runs: no warnings, nothing on ``sys.stderr`` or file descriptor 2.

    nbgrader's Validate button fails a test cell that writes to stderr (the
    autograder does not: points follow the asserts), so test cells wrap a
    student's call in it: a NumPy, Numba or torch warning, or C++ code writing
    straight to descriptor 2 (torch.profiler, DataLoader workers), is not a
    failure. Where descriptor 2 cannot be duplicated, only Python's stderr is silenced.
    """
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:
        saved = None
    try:
        with open(os.devnull, "w") as null, warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            if saved is not None:
                os.dup2(null.fileno(), 2)
            yield
    finally:
        if saved is not None:
            os.dup2(saved, 2)
            os.close(saved)


def silenced(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` inside :func:`silence_stderr`: its result, or its exception."""
    with silence_stderr():
        return fn(*args, **kwargs)


def _seeded_problem(shapes: Sequence[tuple[int, ...]], seed: int, dtype: Any) -> tuple[list[Any], list[Any]]:
    """Seeded starting parameters and targets of ``shapes`` (``dtype``, float64 by default) for the optimizer checks."""
    import torch

    dtype = torch.float64 if dtype is None else dtype
    gen = torch.Generator().manual_seed(seed)
    init = [torch.randn(s, generator=gen, dtype=dtype) for s in shapes]
    targets = [torch.randn(s, generator=gen, dtype=dtype) for s in shapes]
    return init, targets


def _problem_loss(params: Sequence[Any], targets: Sequence[Any], none_grad_index: int | None) -> Any:
    """``sum((p - q)^2 + 0.3 sin(3p))`` over every parameter but the one at ``none_grad_index``."""
    import torch

    return sum(
        ((p - q) ** 2).sum() + 0.3 * torch.sin(3 * p).sum()
        for i, (p, q) in enumerate(zip(params, targets))
        if i != none_grad_index
    )


def optimizer_step_difference(
    step_fn: Callable[..., Any],
    step_kwargs: dict[str, Any],
    opt_cls: type,
    opt_kwargs: dict[str, Any],
    shapes: Sequence[tuple[int, ...]],
    seed: int,
    dtype: Any = None,
    steps: int = 20,
    none_grad_index: int | None = None,
) -> float:
    """Largest parameter difference after ``steps`` steps of ``step_fn`` and of ``opt_cls`` on the same loss (lab02).

    Both start from the same seeded parameters of ``shapes`` (``dtype``,
    float64 by default) and minimise ``sum((p - q)^2 + 0.3 sin(3p))`` towards
    seeded targets ``q``; ``step_fn(params, state, **step_kwargs)`` is the
    student's step, ``opt_cls(params, **opt_kwargs)`` torch's optimizer. The
    parameter at ``none_grad_index`` gets no gradient and must not move.
    """
    import torch

    init, targets = _seeded_problem(shapes, seed, dtype)
    ours = [p.clone().requires_grad_() for p in init]
    ref = [p.clone().requires_grad_() for p in init]
    opt, state = opt_cls(ref, **opt_kwargs), {}
    for _ in range(steps):
        for group in (ours, ref):
            for p in group:
                p.grad = None
            _problem_loss(group, targets, none_grad_index).backward()
        with silence_stderr():
            step_fn(ours, state, **step_kwargs)
        opt.step()
    if none_grad_index is not None:
        assert torch.equal(ours[none_grad_index].detach(), init[none_grad_index]), (
            "a parameter without .grad must not change"
        )
    return max(float((p.detach() - q.detach()).abs().max()) for p, q in zip(ours, ref))


def optimizer_trajectory(
    step_fn: Callable[..., Any],
    step_kwargs: dict[str, Any],
    shapes: Sequence[tuple[int, ...]],
    seed: int,
    dtype: Any = None,
    steps: int = 20,
    none_grad_index: int | None = None,
) -> dict[str, Any]:
    """Run ``step_fn(params, state, **step_kwargs)`` for ``steps`` steps on the loss of :func:`optimizer_step_difference`.

    Each step's gradient is written into the existing ``.grad`` in place, as
    ``zero_grad(set_to_none=False)`` and ``backward()`` do, so a step that keeps
    a reference to ``p.grad`` sees it change. Returns ``{"params": [...],
    "grads": [...], "state_keys": [...]}``: the parameters and gradients after
    the last step (the gradient the last step was given, unless the step changed
    it) and the sorted keys of ``state`` (the parameter at ``none_grad_index``,
    which never has a gradient, left out).
    """
    import torch

    init, targets = _seeded_problem(shapes, seed, dtype)
    params = [p.requires_grad_() for p in init]
    trained = [p for i, p in enumerate(params) if i != none_grad_index]
    state: dict = {}
    for _ in range(steps):
        grads = torch.autograd.grad(_problem_loss(params, targets, none_grad_index), trained)
        with torch.no_grad():
            for p, g in zip(trained, grads):
                if p.grad is None:
                    p.grad = g.clone()
                else:
                    p.grad.copy_(g)
        with silence_stderr():
            step_fn(params, state, **step_kwargs)
    keys = sorted((k for k in state if k != none_grad_index), key=repr)
    return {
        "params": [p.detach().clone() for p in params],
        "grads": [None if p.grad is None else p.grad.detach().clone() for p in params],
        "state_keys": keys,
    }
