"""Guard bands that catch a kernel reading or writing outside its tensors (lab11's tests).

A guarded tensor is a view into the middle of a larger buffer:

    [ guard | the tensor's elements | guard ]

- an input's guard bands hold NaN: an unmasked load past the end reads NaN, which reaches the output
  wherever the value is used (a sum, a maximum, a product); a masked store drops lanes past the end, so
  an unmasked load whose lanes are only stored (a vector add) is not caught;
- an output starts as NaN (an element the kernel never writes stays NaN) and its guard bands hold
  :data:`OUTPUT_GUARD`: a store past the end changes them.

Triton's interpreter does not check bounds (a store far outside can corrupt memory); within ``guard``
elements of a tensor, these bands turn the mistake into a failed check instead.

:func:`masked_loads_read_nan` covers the other side of a mask: the interpreter fills the masked lanes of
a ``tl.load`` without ``other=`` with zeros, where a GPU leaves whatever the registers held.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch

__all__ = [
    "OUTPUT_GUARD",
    "CountLaunches",
    "OutsideLoads",
    "guarded_input",
    "guarded_output",
    "guards_intact",
    "loads_outside",
    "masked_loads_read_nan",
]

OUTPUT_GUARD = -12345.0  # a value no correct kernel stores


def _guarded(shape: tuple[int, ...], dtype: torch.dtype, device: str, guard: int, band: float) -> torch.Tensor:
    numel = 1
    for s in shape:
        numel *= int(s)
    buf = torch.full((numel + 2 * guard,), band, dtype=dtype, device=device)
    return buf[guard : guard + numel].view(shape)


def guarded_input(t: torch.Tensor, guard: int = 16384) -> torch.Tensor:
    """A contiguous copy of ``t`` with ``guard`` NaN elements before and after it in memory."""
    out = _guarded(tuple(t.shape), t.dtype, str(t.device), guard, float("nan"))
    out.copy_(t)
    return out


def guarded_output(shape: tuple[int, ...], dtype: torch.dtype, device: str = "cpu", guard: int = 16384) -> torch.Tensor:
    """An output tensor full of NaN with ``guard`` elements of :data:`OUTPUT_GUARD` before and after it."""
    out = _guarded(tuple(shape), dtype, device, guard, OUTPUT_GUARD)
    out.fill_(float("nan"))
    return out


def guards_intact(t: torch.Tensor) -> bool:
    """True when the guard bands around ``t`` (from :func:`guarded_output`) still hold :data:`OUTPUT_GUARD`."""
    whole = torch.empty(0, dtype=t.dtype, device=t.device).set_(t.untyped_storage())
    start, end = t.storage_offset(), t.storage_offset() + t.numel()
    bands = torch.cat([whole[:start], whole[end:]])
    return bool((bands == OUTPUT_GUARD).all())


class CountLaunches:
    """Stands in for a Triton kernel and counts its launches: ``kernel[grid](...)`` is forwarded to the real one.

    A test swaps it in for the notebook's kernel to check that a wrapper really launches it.
    """

    def __init__(self, kernel: object) -> None:
        self.kernel = kernel
        self.launches = 0

    def __getitem__(self, grid: object) -> object:
        launcher = self.kernel[grid]  # type: ignore[index]

        def launch(*args: object, **kwargs: object) -> object:
            self.launches += 1
            return launcher(*args, **kwargs)

        return launch


@contextlib.contextmanager
def _wrapped_interpreter_load(wrap: Callable[[Any, Callable], Callable]) -> Iterator[None]:
    """Inside: Triton's interpreter loads through ``wrap(interpreter, real_load)``; nothing changes without it.

    Every ``tl.load`` of the interpreter, masked or not, goes through ``InterpreterBuilder.create_masked_load``.
    """
    try:
        from triton.runtime import interpreter
    except ImportError:
        yield
        return
    builder = interpreter.InterpreterBuilder
    real_load = builder.create_masked_load
    builder.create_masked_load = wrap(interpreter, real_load)
    try:
        yield
    finally:
        builder.create_masked_load = real_load


@contextlib.contextmanager
def masked_loads_read_nan() -> Iterator[None]:
    """Inside: Triton's interpreter fills the masked lanes of a float ``tl.load`` given no ``other=`` with NaN.

    The interpreter fills them with zeros, which happens to be right for a sum; on a GPU they are undefined.
    A kernel whose result uses those lanes (``tl.dot`` over a partial tile of K, ``p @ v`` over keys past
    the end) gives NaN here, as it may give garbage on a GPU. Loads with ``other=`` and unmasked loads are
    unchanged; without the interpreter (a GPU, or no Triton) this does nothing.
    """

    def nan_filled(interpreter, zeros_load):
        def load(self, ptrs, mask, other, *args, **kwargs):
            dtype_tt = ptrs.get_element_ty()
            dtype_np = interpreter._get_np_dtype(dtype_tt)
            if other is None and np.issubdtype(dtype_np, np.floating):
                other = interpreter.TensorHandle(np.full_like(ptrs.data, np.nan, dtype=dtype_np), dtype_tt)
            return zeros_load(self, ptrs, mask, other, *args, **kwargs)

        return load

    with _wrapped_interpreter_load(nan_filled):
        yield


class OutsideLoads:
    """What :func:`loads_outside` saw: ``lanes``, the loaded lanes whose address lies outside the given tensors."""

    def __init__(self) -> None:
        self.lanes = 0


@contextlib.contextmanager
def loads_outside(*tensors: torch.Tensor) -> Iterator[OutsideLoads]:
    """Inside: Triton's interpreter counts the lanes it loads (mask true, or no mask) outside ``tensors``' elements.

    A load past the end reads the guard band here; on a GPU it can read another allocation or fault, even when
    a masked store drops what it read. The tensors must be contiguous CPU tensors, as the interpreter's are.
    Without the interpreter (a GPU, or no Triton) nothing is counted.
    """
    seen = OutsideLoads()
    spans = [(t.data_ptr(), t.data_ptr() + t.numel() * t.element_size()) for t in tensors]

    def counting(interpreter, real_load):
        def load(self, ptrs, mask, other, *args, **kwargs):
            addresses = ptrs.data[np.asarray(mask.data, dtype=bool)] if mask is not None else ptrs.data
            inside = np.zeros(addresses.shape, dtype=bool)
            for low, high in spans:
                inside |= (addresses >= low) & (addresses < high)
            seen.lanes += int((~inside).sum())
            return real_load(self, ptrs, mask, other, *args, **kwargs)

        return load

    with _wrapped_interpreter_load(counting):
        yield seen
