"""Triton on any Linux machine: the real compiler on a GPU, Triton's interpreter on the CPU (week 6, lab11).

Call :func:`load_triton` before the first ``@triton.jit``: without a CUDA GPU it sets
``TRITON_INTERPRET=1``, so ``@triton.jit`` kernels run on CPU tensors, one program at a time, in NumPy
(about 2 ms per loop iteration: correct results, meaningless times). With a GPU it sets ``TRITON_DEBUG=1``
so ``tl.device_assert`` is checked (the interpreter ignores it: guard bands, :mod:`hpml_lab_utils.guards`,
catch out-of-bounds accesses there).

Triton ships wheels for Linux x86-64 only; elsewhere :func:`load_triton` returns stand-ins whose kernels
say so when launched, so a notebook still runs from top to bottom.
"""

from __future__ import annotations

import os
import platform
import sys
from dataclasses import dataclass
from typing import Any

__all__ = ["TritonStatus", "load_triton", "triton_device"]


@dataclass(frozen=True)
class TritonStatus:
    """available: ``import triton`` worked; interpreted: kernels run in Triton's CPU interpreter; why: a sentence."""

    available: bool
    interpreted: bool
    why: str


class _Unavailable:
    """Stands in for ``triton`` and ``triton.language`` where Triton cannot be installed (macOS, Windows, ARM)."""

    def __init__(self, why: str) -> None:
        self._why = why

    def __getattr__(self, name: str) -> Any:
        if name == "jit":
            return self._jit
        return self  # tl.constexpr, tl.float32...: harmless placeholders in signatures

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(self._why)

    def __getitem__(self, grid: Any) -> Any:
        return self  # kernel[grid](...) raises when called

    def _jit(self, fn: Any = None, **options: Any) -> Any:
        return self if fn is not None else (lambda f: self)


def _interpret_language_functions() -> None:
    """Make ``triton.language``'s own jitted helpers (``tl.max``, ``tl.sum``...) interpretable.

    They are decorated when ``triton.language`` is imported; if something imported it before ``TRITON_INTERPRET``
    was set (``import torch._dynamo`` does), they are compiled-mode functions, and an interpreted kernel that
    calls them fails with "Cannot call @triton.jit'd outside of the scope of a kernel". Wrapping them as the
    interpreter would have fixes that.
    """
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith("triton.language"):
            continue
        for attr, value in list(vars(module).items()):
            if isinstance(value, JITFunction) and not isinstance(value, InterpretedFunction):
                setattr(module, attr, InterpretedFunction(value.fn))


def triton_device() -> str:
    """``"cuda"`` when a CUDA GPU runs Triton's compiled kernels, else ``"cpu"`` (the interpreter's tensors)."""
    from .device import torch_device

    return torch_device()


def load_triton() -> tuple[Any, Any, TritonStatus]:
    """``(triton, triton.language, status)``; stand-ins that explain themselves where Triton is missing.

    Must run before the notebook's first ``@triton.jit``: the interpreter is chosen when a kernel is decorated.
    """
    import torch

    # Triton reads both settings when a kernel is decorated (triton.knobs), so they work even when some library
    # imported triton already
    if triton_device() == "cuda":  # HPML_FORCE_CPU=1 runs the interpreter on a GPU machine too
        os.environ.setdefault("TRITON_DEBUG", "1")
    else:
        os.environ.setdefault("TRITON_INTERPRET", "1")
    interpreted = os.environ.get("TRITON_INTERPRET") == "1"
    try:
        import triton
        import triton.language as tl
    except ImportError as e:
        if sys.platform == "linux" and platform.machine() == "x86_64":
            why = f"Triton is not installed ({e}): run `make setup` (or pip install 'triton==3.7.1')"
        else:
            why = (
                f"Triton has no wheels for {sys.platform}/{platform.machine()}: the Triton parts run and are "
                "graded on Linux x86-64 (the course's JupyterHub); the C++ parts run here"
            )
        stub = _Unavailable(why)
        return stub, stub, TritonStatus(False, False, why)  # tl.constexpr, tl.float32...: the stub again
    if interpreted:
        _interpret_language_functions()
    how = "Triton's CPU interpreter (TRITON_INTERPRET=1): results are exact, times mean nothing"
    if not interpreted:
        how = f"compiled for {torch.cuda.get_device_name()} (tl.device_assert checked: TRITON_DEBUG=1)"
    return triton, tl, TritonStatus(True, interpreted, f"triton {triton.__version__}: {how}")
