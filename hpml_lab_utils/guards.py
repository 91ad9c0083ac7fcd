"""Guard bands that catch a kernel reading or writing outside its tensors (lab11's tests).

A guarded tensor is a view into the middle of a larger buffer:

    [ guard | the tensor's elements | guard ]

- an input's guard bands hold NaN: an unmasked load past the end reads NaN, and NaN spreads to the output;
- an output starts as NaN (an element the kernel never writes stays NaN) and its guard bands hold
  :data:`OUTPUT_GUARD`: a store past the end changes them.

Triton's interpreter does not check bounds (a store far outside can corrupt memory); within ``guard``
elements of a tensor, these bands turn the mistake into a failed check instead.
"""

from __future__ import annotations

import torch

__all__ = ["OUTPUT_GUARD", "CountLaunches", "guarded_input", "guarded_output", "guards_intact"]

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
