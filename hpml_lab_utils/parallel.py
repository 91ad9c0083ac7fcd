"""Measure what one rank holds and allocates in parallel training (week 8, lab10).

- :func:`local_numel`: elements of a tensor held by this rank (a DTensor's local shard under FSDP2).
- :func:`held_bytes`: bytes of parameters, gradients and optimizer state this rank holds now,
  counted from the live tensors (compare with ``memory_per_rank``'s prediction).
- :func:`step_peak_bytes`: the most memory allocated at once while a function runs (a training
  step's activations, gathered parameters, new gradients), above what was allocated before it;
  from the CUDA allocator on a GPU, from PyTorch's profiler's memory events on the CPU.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from typing import Any

import torch

__all__ = ["held_bytes", "local_numel", "step_peak_bytes"]


def local_numel(tensor: torch.Tensor) -> int:
    """Elements of ``tensor`` stored on this rank: its local shard when it is a DTensor (FSDP2, tensor parallel)."""
    to_local = getattr(tensor, "to_local", None)
    return int((to_local() if to_local is not None else tensor).numel())


def _local_bytes(tensor: torch.Tensor) -> int:
    return local_numel(tensor) * tensor.element_size()


def held_bytes(model: torch.nn.Module, optimizer: Any = None) -> dict[str, int]:
    """{"params", "grads", "optimizer", "total"}: bytes this rank holds, summed over live tensors.

    ``optimizer``: a torch optimizer, or a sharded one whose local optimizer is its
    ``local_optimizer`` (None: no state) or ``optim`` (``ZeroRedundancyOptimizer``). Scalar state such as Adam's
    ``step`` counts too (a few bytes per parameter tensor).
    """
    params = sum(_local_bytes(p) for p in model.parameters())
    grads = sum(_local_bytes(p.grad) for p in model.parameters() if p.grad is not None)
    inner = optimizer
    for name in ("local_optimizer", "optim"):  # a sharded optimizer's own: ours, ZeroRedundancyOptimizer's
        if hasattr(optimizer, name):
            inner = getattr(optimizer, name)
            break
    state = 0
    if inner is not None:
        for values in inner.state.values():
            state += sum(_local_bytes(v) for v in values.values() if isinstance(v, torch.Tensor))
    return {"params": params, "grads": grads, "optimizer": state, "total": params + grads + state}


def step_peak_bytes(fn: Callable[[], Any], device: torch.device | str = "cpu") -> tuple[Any, int]:
    """Run ``fn()``; return (its result, peak bytes allocated during it above the level before it).

    On CUDA: ``torch.cuda.max_memory_allocated`` after a reset. On the CPU, PyTorch's
    profiler with ``profile_memory=True`` records every allocation and free with the
    running total of what was allocated while it ran; the peak is that total's maximum.
    The profiler slows ``fn`` down: do not time the same call.
    """
    device = torch.device(device)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        before = torch.cuda.memory_allocated(device)
        torch.cuda.reset_peak_memory_stats(device)
        result = fn()
        torch.cuda.synchronize(device)
        return result, int(torch.cuda.max_memory_allocated(device) - before)
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        result = fn()
    handle, path = tempfile.mkstemp(suffix=".json", prefix="hpml-memory-")
    os.close(handle)
    try:
        prof.export_chrome_trace(path)
        with open(path) as f:
            events = json.load(f).get("traceEvents", [])
    finally:
        os.unlink(path)
    totals = [e["args"].get("Total Allocated", 0) for e in events if e.get("name") == "[memory]"]
    return result, int(max(totals, default=0))
