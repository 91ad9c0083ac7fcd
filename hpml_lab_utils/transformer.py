"""A tiny character-level decoder-only transformer and its text, for efficient transformers (week 11, lab07 and lab09).

The text: :func:`load_text` returns the first 63,889 characters (about 64 KB, cut
at the end of a speech) of "tiny shakespeare", the opening of *Coriolanus* as
collected by Andrej Karpathy for char-rnn
(``https://github.com/karpathy/char-rnn``, ``data/tinyshakespeare/input.txt``,
commit d1d7aa3). Shakespeare's plays are in the public domain; the file ships in
``hpml_lab_utils/texts/tiny_shakespeare.txt`` and nothing is downloaded.

* :class:`CharTokenizer`: one token per character, the vocabulary is the sorted
  set of characters of the text (``encode`` / ``decode``).
* :class:`TinyGPT`: token + position embeddings, ``n_layer`` pre-LayerNorm blocks
  (causal self-attention, then an MLP of width ``4 * n_embd``), a final
  LayerNorm and a linear head. Its attention uses
  ``F.scaled_dot_product_attention``; the lab's own ``attention`` is graded
  separately. The key/value cache interface::

      logits, present_kv = model(idx)                    # idx: (batch, T) token ids
      logits, present_kv = model(next_ids, past_kv=present_kv)

  ``logits`` is ``(batch, T, vocab)``; ``present_kv`` is a list with one
  ``(k, v)`` pair per layer, each ``(batch, n_head, T_past + T, head_dim)``: the
  keys and values of every position so far. Passing it back as ``past_kv``
  processes only the new tokens, at positions ``T_past ...``. Layers are looked
  up as attributes in ``forward`` (``block.attn.qkv``, ``block.attn.proj``,
  ``block.mlp.fc``, ``block.mlp.proj``), so they can be swapped (LoRA).
* :func:`forward_with_attention` (lab09): the same forward pass with the attention
  supplied by the caller, who stores keys and values where it likes (a paged
  KV cache) and reads them back for the new tokens.
* :func:`random_windows` (a batch of input and next-character target windows at
  random offsets), :func:`train_tiny_gpt` (AdamW on such batches, a tqdm bar) and
  :func:`evaluate_loss` (mean cross-entropy in nats per character).
* :func:`peak_memory_bytes`: the peak memory of a call, measured (CUDA: the
  allocator's peak; CPU: the peak of live tensor bytes created by every PyTorch
  op of the call, tracked by intercepting the ops).
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any

import torch
import torch.nn as nn
import torch.nn.functional as F

__all__ = [
    "CharTokenizer",
    "TinyGPT",
    "count_parameters",
    "evaluate_loss",
    "forward_with_attention",
    "load_text",
    "sdpa_backend",
    "peak_memory_bytes",
    "random_windows",
    "train_tiny_gpt",
]

TEXT_FILE = "tiny_shakespeare.txt"

KVCache = list[tuple[torch.Tensor, torch.Tensor]]


def load_text(name: str = TEXT_FILE) -> str:
    """The text shipped in ``hpml_lab_utils/texts/`` (default: tiny Shakespeare, 63,889 characters) (lab07)."""
    return (resources.files("hpml_lab_utils") / "texts" / name).read_text(encoding="utf-8")


class CharTokenizer:
    """Character-level tokenizer: token ``i`` is the ``i``-th character of the sorted vocabulary (lab07).

    ``CharTokenizer(text)`` builds the vocabulary from ``text``; ``encode`` maps a
    string to a ``torch.long`` tensor of ids, ``decode`` maps ids back to a string.
    """

    def __init__(self, text: str) -> None:
        if not text:
            raise ValueError("CharTokenizer needs a non-empty text to build its vocabulary")
        self.chars: list[str] = sorted(set(text))
        self.stoi = {c: i for i, c in enumerate(self.chars)}

    @property
    def vocab_size(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> torch.Tensor:
        unknown = sorted(set(text) - set(self.stoi))
        if unknown:
            raise ValueError(
                f"characters not in the vocabulary: {unknown!r}; build the tokenizer from a text that has them"
            )
        return torch.tensor([self.stoi[c] for c in text], dtype=torch.long)

    def decode(self, ids: torch.Tensor | Sequence[int]) -> str:
        return "".join(self.chars[int(i)] for i in (ids.tolist() if isinstance(ids, torch.Tensor) else ids))


class CausalSelfAttention(nn.Module):
    """Multi-head causal self-attention with a key/value cache (lab07).

    ``qkv`` projects to queries, keys and values at once (``n_embd -> 3 n_embd``),
    ``proj`` mixes the heads back. Attention: softmax(Q K^T / sqrt(head_dim)) V,
    each position attending to itself and the positions before it.
    """

    def __init__(self, n_embd: int, n_head: int) -> None:
        super().__init__()
        if n_embd % n_head:
            raise ValueError(f"n_embd={n_embd} must be a multiple of n_head={n_head}")
        self.n_head = n_head
        self.head_dim = n_embd // n_head
        self.qkv = nn.Linear(n_embd, 3 * n_embd)
        self.proj = nn.Linear(n_embd, n_embd)

    def heads(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Queries, keys and values of ``x`` (batch, T, n_embd), each (batch, n_head, T, head_dim)."""
        batch, t_new, n_embd = x.shape
        q, k, v = self.qkv(x).split(n_embd, dim=2)
        return tuple(z.view(batch, t_new, self.n_head, self.head_dim).transpose(1, 2) for z in (q, k, v))

    def forward(
        self, x: torch.Tensor, past: tuple[torch.Tensor, torch.Tensor] | None = None
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        batch, t_new, n_embd = x.shape
        q, k, v = self.heads(x)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        t_past = k.shape[2] - t_new
        if t_past == 0:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=t_new > 1)
        elif t_new == 1:  # one new token sees every cached position
            y = F.scaled_dot_product_attention(q, k, v)
        else:  # new token i (at position t_past + i) sees keys 0 .. t_past + i
            rows = torch.arange(t_new, device=x.device)[:, None] + t_past
            mask = rows >= torch.arange(t_past + t_new, device=x.device)[None, :]
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        y = y.transpose(1, 2).reshape(batch, t_new, n_embd)
        return self.proj(y), (k, v)


class MLP(nn.Module):
    """Position-wise feed-forward layer: fc (n_embd -> 4 n_embd), GELU, proj (4 n_embd -> n_embd) (lab07)."""

    def __init__(self, n_embd: int) -> None:
        super().__init__()
        self.fc = nn.Linear(n_embd, 4 * n_embd)
        self.proj = nn.Linear(4 * n_embd, n_embd)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(F.gelu(self.fc(x)))


class Block(nn.Module):
    """Pre-LayerNorm transformer block: x + attn(ln1(x)), then x + mlp(ln2(x)) (lab07)."""

    def __init__(self, n_embd: int, n_head: int) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head)
        self.ln2 = nn.LayerNorm(n_embd)
        self.mlp = MLP(n_embd)

    def forward(
        self, x: torch.Tensor, past: tuple[torch.Tensor, torch.Tensor] | None = None
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        attn_out, present = self.attn(self.ln1(x), past)
        x = x + attn_out
        return x + self.mlp(self.ln2(x)), present


class TinyGPT(nn.Module):
    """A small decoder-only transformer over characters (week 11, lab07).

    ``vocab_size`` tokens, ``block_size`` positions at most (prompt plus
    generated tokens), ``n_layer`` blocks of ``n_head`` heads of width
    ``n_embd // n_head``. About ``12 n_layer n_embd^2`` parameters in the blocks.
    ``forward(idx, past_kv=None) -> (logits, present_kv)``: see the module
    docstring. ``seed`` makes the initial weights reproducible without touching
    the global random state.
    """

    def __init__(
        self,
        vocab_size: int,
        block_size: int = 256,
        n_layer: int = 4,
        n_head: int = 4,
        n_embd: int = 128,
        seed: int | None = None,
    ) -> None:
        super().__init__()
        self.vocab_size = vocab_size
        self.block_size = block_size
        self.n_layer, self.n_head, self.n_embd = n_layer, n_head, n_embd
        with torch.random.fork_rng(devices=[]):
            if seed is not None:
                torch.manual_seed(seed)
            self.tok_emb = nn.Embedding(vocab_size, n_embd)
            self.pos_emb = nn.Embedding(block_size, n_embd)
            self.blocks = nn.ModuleList(Block(n_embd, n_head) for _ in range(n_layer))
            self.ln_f = nn.LayerNorm(n_embd)
            self.head = nn.Linear(n_embd, vocab_size)
            for module in self.modules():
                if isinstance(module, (nn.Linear, nn.Embedding)):
                    nn.init.normal_(module.weight, mean=0.0, std=0.02)
                    if getattr(module, "bias", None) is not None:
                        nn.init.zeros_(module.bias)

    def forward(self, idx: torch.Tensor, past_kv: KVCache | None = None) -> tuple[torch.Tensor, KVCache]:
        if idx.dim() != 2:
            raise ValueError(f"idx must be (batch, T) token ids, got shape {tuple(idx.shape)}")
        t_past = 0 if not past_kv else past_kv[0][0].shape[2]
        t_new = idx.shape[1]
        if t_past + t_new > self.block_size:
            raise ValueError(
                f"{t_past} cached + {t_new} new tokens exceed block_size={self.block_size}: "
                "generate fewer tokens, shorten the prompt, or build the model with a larger block_size"
            )
        positions = torch.arange(t_past, t_past + t_new, device=idx.device)
        x = self.tok_emb(idx) + self.pos_emb(positions)
        present: KVCache = []
        for i, block in enumerate(self.blocks):
            x, kv = block(x, past_kv[i] if past_kv else None)
            present.append(kv)
        return self.head(self.ln_f(x)), present


Attend = Callable[[int, torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]


def forward_with_attention(model: TinyGPT, idx: torch.Tensor, positions: torch.Tensor, attend: Attend) -> torch.Tensor:
    """TinyGPT's forward pass with the attention supplied by the caller; returns logits (batch, T, vocab) (lab09).

    ``idx`` and ``positions`` are (batch, T): token ids and their absolute
    positions (sequences of one batch may be at different positions). In layer
    ``i``, ``attend(i, q, k, v)`` receives the new tokens' queries, keys and
    values, each (batch, n_head, T, head_dim), and returns their attention
    output of the same shape: the place where a KV cache stores ``k`` and ``v``
    and reads the keys and values of earlier positions. Everything else (embeddings,
    LayerNorms, projections, MLPs, the head) is the model's own.
    """
    if idx.dim() != 2 or positions.shape != idx.shape:
        raise ValueError(
            f"idx and positions must both be (batch, T), got {tuple(idx.shape)} and {tuple(positions.shape)}"
        )
    if idx.numel() and int(positions.max()) >= model.block_size:
        raise ValueError(
            f"position {int(positions.max())} is beyond block_size={model.block_size}: "
            "generate fewer tokens or build the model with a larger block_size"
        )
    x = model.tok_emb(idx) + model.pos_emb(positions)
    for i, block in enumerate(model.blocks):
        q, k, v = block.attn.heads(block.ln1(x))
        y = attend(i, q, k, v)
        x = x + block.attn.proj(y.transpose(1, 2).reshape(x.shape))
        x = x + block.mlp(block.ln2(x))
    return model.head(model.ln_f(x))


def random_windows(
    ids: torch.Tensor, batch_size: int, seq_len: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """A batch of (input, target) windows of ``seq_len`` token ids at random offsets, each ``(batch_size, seq_len)``.

    ``target[b, t] == ids[start_b + t + 1]``: the next token after ``input[b, t]``. Offsets are drawn uniformly
    from ``0 .. len(ids) - seq_len - 1`` with ``generator`` (on the CPU), so the same seed gives the same batches.
    """
    starts = torch.randint(0, len(ids) - seq_len, (batch_size,), generator=generator)
    x = torch.stack([ids[s : s + seq_len] for s in starts.tolist()])
    y = torch.stack([ids[s + 1 : s + seq_len + 1] for s in starts.tolist()])
    return x, y


def train_tiny_gpt(
    model: nn.Module,
    ids: torch.Tensor,
    steps: int,
    batch_size: int = 16,
    seq_len: int | None = None,
    lr: float = 3e-3,
    seed: int = 0,
    desc: str = "training",
    progress: bool = True,
) -> list[float]:
    """Train ``model`` in place for ``steps`` AdamW steps on random windows of ``ids``; return each step's loss (lab07).

    Only parameters with ``requires_grad`` are optimized (so a LoRA-wrapped model
    trains only its adapters). Each step takes ``batch_size`` windows of
    ``seq_len`` characters (default: the model's ``block_size``) at seeded random
    offsets and minimises the next-character cross-entropy (nats per character).
    The learning rate warms up over the first 10% of the steps, then decays
    linearly to a tenth. A tqdm bar shows the running loss. The model is left in
    eval mode.
    """
    from tqdm.auto import tqdm

    seq_len = seq_len or model.block_size
    if steps < 0 or batch_size < 1 or not 1 <= seq_len < len(ids):
        raise ValueError(
            f"need steps >= 0, batch_size >= 1 and 1 <= seq_len < len(ids) ({len(ids)}), "
            f"got steps={steps}, batch_size={batch_size}, seq_len={seq_len}"
        )
    params = [p for p in model.parameters() if p.requires_grad]
    if not params:
        raise ValueError("the model has no trainable parameters (requires_grad is False everywhere)")
    device = next(model.parameters()).device
    optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    warmup = max(1, steps // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / warmup) * (1.0 - 0.9 * s / max(1, steps))
    )
    generator = torch.Generator().manual_seed(seed)
    losses: list[float] = []
    model.train()
    with tqdm(total=steps, desc=desc, disable=not progress, file=sys.stdout, leave=True) as bar:
        for _ in range(steps):
            x, y = (t.to(device) for t in random_windows(ids, batch_size, seq_len, generator))
            logits, _ = model(x)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimizer.step()
            schedule.step()
            losses.append(float(loss.detach()))
            bar.update(1)
            bar.set_postfix(loss=f"{losses[-1]:.3f}")
    model.eval()
    return losses


@torch.no_grad()
def evaluate_loss(
    model: nn.Module, ids: torch.Tensor, seq_len: int | None = None, max_windows: int = 64, batch_size: int = 16
) -> float:
    """Mean next-character cross-entropy (nats per character) of ``model`` on ``ids`` (lab07).

    Uses up to ``max_windows`` consecutive, non-overlapping windows of
    ``seq_len`` characters (default: the model's ``block_size``) from the start
    of ``ids``: deterministic, so two models are compared on the same characters.
    """
    seq_len = seq_len or model.block_size
    n_windows = min(max_windows, (len(ids) - 1) // seq_len)
    if n_windows < 1:
        raise ValueError(f"ids has {len(ids)} tokens: too short for one window of {seq_len} + 1")
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    for first in range(0, n_windows, batch_size):
        starts = range(first * seq_len, min(n_windows, first + batch_size) * seq_len, seq_len)
        x = torch.stack([ids[s : s + seq_len] for s in starts]).to(device)
        y = torch.stack([ids[s + 1 : s + seq_len + 1] for s in starts]).to(device)
        logits, _ = model(x)
        total += float(F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), reduction="sum"))
        count += y.numel()
    model.train(was_training)
    return total / count


class _LiveTensorBytes:
    """Tracks the bytes of tensors created by PyTorch ops while active: current and peak (lab07, CPU memory)."""

    def __init__(self) -> None:
        self.current = 0
        self.peak = 0
        self.largest = 0
        self._live: dict[int, list[int]] = {}  # storage address -> [bytes, tensors alive that use it]

    def _release(self, key: int) -> None:
        entry = self._live.get(key)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] == 0:
            self.current -= entry[0]
            del self._live[key]

    def track(self, tensor: torch.Tensor, input_storages: set[int]) -> None:
        storage = tensor.untyped_storage()
        key = storage.data_ptr()
        if key == 0 or key in input_storages:  # empty, or a view / in-place result of an existing tensor
            return
        entry = self._live.get(key)
        if entry is None:
            entry = self._live[key] = [storage.nbytes(), 0]
            self.current += entry[0]
            self.peak = max(self.peak, self.current)
            self.largest = max(self.largest, entry[0])
        entry[1] += 1
        weakref.finalize(tensor, self._release, key)


def _tensor_memory_mode(tracker: _LiveTensorBytes):
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_flatten

    class Mode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            inputs = {
                t.untyped_storage().data_ptr() for t in tree_flatten((args, kwargs))[0] if isinstance(t, torch.Tensor)
            }
            for t in tree_flatten(out)[0]:
                if isinstance(t, torch.Tensor):
                    tracker.track(t, inputs - set(tracker._live))
            return out

    return Mode()


def peak_memory_bytes(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[int, str]:
    """Peak memory of ``fn(*args, **kwargs)`` above what was allocated before, in bytes, and how it was measured (lab07).

    With CUDA tensors: ``torch.cuda.max_memory_allocated`` (the caching
    allocator's peak) minus the memory allocated before the call. On the CPU:
    every PyTorch op of the call is intercepted (a ``TorchDispatchMode``) and the
    bytes of the tensors it creates are counted while they are alive; the peak
    of that count is returned. Memory allocated outside PyTorch ops (Python
    objects, a library's scratch space) is not seen.
    """
    on_cuda = any(isinstance(a, torch.Tensor) and a.is_cuda for a in args)
    if on_cuda:
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        fn(*args, **kwargs)
        torch.cuda.synchronize()
        return int(torch.cuda.max_memory_allocated() - before), "CUDA allocator peak (torch.cuda.max_memory_allocated)"
    tracker = _LiveTensorBytes()
    with _tensor_memory_mode(tracker):
        result = fn(*args, **kwargs)
    del result
    return int(tracker.peak), "peak of live tensor bytes created by PyTorch ops (intercepted with a TorchDispatchMode)"


def count_parameters(model: nn.Module) -> int:
    """All parameters of ``model`` (trainable or not) (lab07)."""
    return sum(p.numel() for p in model.parameters())


# PyTorch's fused attention kernels, by the aten operator the dispatcher runs (most specific names first)
_SDPA_KERNELS = [
    ("_scaled_dot_product_flash_attention_for_cpu", "flash-style CPU kernel (blocked, online softmax)"),
    ("_scaled_dot_product_flash_attention", "FlashAttention-2 (CUDA)"),
    ("_scaled_dot_product_efficient_attention", "memory-efficient attention (CUDA, xFormers')"),
    ("_scaled_dot_product_cudnn_attention", "cuDNN attention"),
    ("_scaled_dot_product_attention_math", "math: S and P materialised"),
]


def sdpa_backend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, **kwargs: Any) -> str:
    """Which kernel ``F.scaled_dot_product_attention(q, k, v, **kwargs)`` runs for these inputs (week 11).

    Read from the aten operators the call dispatches (a ``TorchDispatchMode`` records them), not guessed:
    FlashAttention on a GPU needs FP16/BF16 inputs, so FP32 gets the memory-efficient or the math kernel there.
    """
    from torch.utils._python_dispatch import TorchDispatchMode

    class _Record(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.ops: set[str] = set()

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops.add(func.overloadpacket.__name__)
            return func(*args, **(kwargs or {}))

    with _Record() as record:
        F.scaled_dot_product_attention(q, k, v, **kwargs)
    for op, label in _SDPA_KERNELS:
        if op in record.ops:
            return f"{label} [aten::{op}]"
    return "math: S and P materialised [no fused kernel dispatched]"
