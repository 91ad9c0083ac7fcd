"""What the fine-tuning-in-production lab (lab14) passes around, and the baselines it measures against.

The lab writes NF4 quantization, AWQ's scales, the QLoRA layer, EWC, the drift
monitor and the multi-adapter server; this module holds only:

* :class:`NF4Tensor`: what ``quantize_nf4`` returns (packed 4-bit codes and
  the per-block scales, optionally quantized again), with its size in bytes.
* :func:`fake_quantize_int4`: plain round-to-nearest INT4 with a zero point per
  group of input channels, the baseline AWQ improves on (and the quantizer
  AWQ's search applies).
* :func:`fake_quantize_int4_absmax`: symmetric INT4 per block of a flattened
  tensor (the same blocks as NF4, evenly spaced levels instead of normal
  quantiles), the baseline NF4 is measured against.
* :func:`forward_with_linears`: TinyGPT's forward pass with each block's linear
  layers computed by the caller (where a multi-adapter server adds each
  request's own LoRA update).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import torch
import torch.nn.functional as F

__all__ = ["LINEAR_NAMES", "NF4Tensor", "fake_quantize_int4", "fake_quantize_int4_absmax", "forward_with_linears"]

LINEAR_NAMES = ("attn.qkv", "attn.proj", "mlp.fc", "mlp.proj")  # the linear layers of each TinyGPT block


class NF4Tensor(NamedTuple):
    """A tensor of ``shape`` in blockwise 4-bit NormalFloat (lab14, Part 1).

    packed: uint8 [ceil(n / 2)], two 4-bit code indices per byte (the element of even flat index in the
    high four bits). absmax: float32 [n_blocks], each block's largest magnitude; with double quantization,
    int8 [n_blocks] codes of ``absmax - absmax_mean``, scaled per group of 256 blocks by ``absmax_scale``
    (float32 [ceil(n_blocks / 256)]). absmax_mean: the float subtracted before that (None without).
    """

    packed: torch.Tensor
    absmax: torch.Tensor
    absmax_scale: torch.Tensor | None
    absmax_mean: float | None
    shape: tuple[int, ...]
    block_size: int

    def nbytes(self) -> int:
        """Bytes of storage: the packed codes, the block scales and, with double quantization, its scales and mean."""
        total = self.packed.numel() * self.packed.element_size() + self.absmax.numel() * self.absmax.element_size()
        if self.absmax_scale is not None:
            total += self.absmax_scale.numel() * self.absmax_scale.element_size() + 4  # the mean as a float32
        return total


def fake_quantize_int4(w: torch.Tensor, group_size: int = 64) -> torch.Tensor:
    """``w`` [out, in] rounded to 16 levels per group of ``group_size`` input channels, returned dequantized.

    Per group: scale = (max - min) / 15 (at least 1e-8), zero = round(-min / scale),
    q = clamp(round(w / scale) + zero, 0, 15), result (q - zero) * scale: asymmetric
    round-to-nearest as AWQ's code applies it. ``in`` must be a multiple of ``group_size``.
    """
    if w.dim() != 2 or group_size < 1 or w.shape[1] % group_size:
        raise ValueError(
            f"need w of shape [out, in] with in a multiple of group_size={group_size}, got {tuple(w.shape)}"
        )
    out_features, in_features = w.shape
    groups = w.reshape(out_features, in_features // group_size, group_size)
    low, high = groups.amin(-1, keepdim=True), groups.amax(-1, keepdim=True)
    scale = ((high - low) / 15).clamp(min=1e-8)
    zero = torch.round(-low / scale)
    q = torch.clamp(torch.round(groups / scale) + zero, 0, 15)
    return ((q - zero) * scale).reshape(out_features, in_features)


def fake_quantize_int4_absmax(w: torch.Tensor, block_size: int = 64) -> torch.Tensor:
    """``w`` (any shape) in blocks of ``block_size`` flat elements, each rounded to round(7 w / absmax) * absmax / 7.

    Symmetric INT4 (15 of the 16 codes used) with one float scale per block, returned dequantized in float32.
    """
    if block_size < 1:
        raise ValueError(f"block_size must be at least 1, got {block_size}")
    flat = w.detach().reshape(-1).to(torch.float32)
    n = flat.numel()
    padded = torch.nn.functional.pad(flat, (0, -n % block_size)).view(-1, block_size)
    absmax = padded.abs().amax(1, keepdim=True)
    step = torch.where(absmax > 0, absmax / 7, torch.ones_like(absmax))
    return (torch.round(padded / step) * step).reshape(-1)[:n].reshape(w.shape)


Linear = Callable[[str, torch.nn.Linear, torch.Tensor], torch.Tensor]


def forward_with_linears(model: torch.nn.Module, idx: torch.Tensor, linear: Linear) -> torch.Tensor:
    """TinyGPT's forward pass over ``idx`` (batch, T) with no KV cache; returns logits (batch, T, vocab).

    Each block's linear layers are computed by ``linear(name, layer, x)``: ``name`` is
    ``"blocks.{i}.{one of LINEAR_NAMES}"``, ``layer`` the model's ``nn.Linear`` and ``x``
    its input (batch, T, in_features); it returns (batch, T, out_features). With
    ``linear = lambda name, layer, x: layer(x)`` this is ``model(idx)[0]``. Attention is
    causal, so a sequence padded on the right gets the same logits at its own
    positions as alone.
    """
    if idx.dim() != 2 or idx.shape[1] > model.block_size:
        raise ValueError(f"idx must be (batch, T) with T <= block_size={model.block_size}, got {tuple(idx.shape)}")
    batch, length = idx.shape
    x = model.tok_emb(idx) + model.pos_emb(torch.arange(length, device=idx.device))
    for i, block in enumerate(model.blocks):
        attn = block.attn
        q, k, v = linear(f"blocks.{i}.attn.qkv", attn.qkv, block.ln1(x)).split(model.n_embd, dim=2)
        q, k, v = (z.view(batch, length, attn.n_head, attn.head_dim).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=length > 1).transpose(1, 2).reshape(x.shape)
        x = x + linear(f"blocks.{i}.attn.proj", attn.proj, y)
        hidden = F.gelu(linear(f"blocks.{i}.mlp.fc", block.mlp.fc, block.ln2(x)))
        x = x + linear(f"blocks.{i}.mlp.proj", block.mlp.proj, hidden)
    return model.head(model.ln_f(x))
