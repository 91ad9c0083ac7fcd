"""A small CNN and its training loop, for the compression lab (weeks 8-10, lab06).

:class:`SmallCNN` classifies 28x28 single-channel images (Animal-Shape, see
:func:`hpml_lab_utils.data.animal_shapes_split`) with three 3x3 convolutions and
one linear layer, named ``conv1``, ``conv2``, ``conv3`` and ``fc`` so that
pruning and quantization code can reach each layer by name::

    conv1 (1 -> w0) -> ReLU -> 2x2 max-pool        28x28 -> 14x14
    conv2 (w0 -> w1) -> ReLU -> 2x2 max-pool       14x14 -> 7x7
    conv3 (w1 -> w2) -> ReLU -> global average pool  7x7 -> 1x1
    fc    (w2 -> classes)

Because of the global average pool, the ``fc`` layer has one input per output
channel of ``conv3``: pruning a channel of ``conv3`` removes one column of
``fc``. Every layer is looked up as an attribute in :meth:`SmallCNN.forward`,
so a layer can be swapped for a smaller one (``model.conv2 = ...``).

:func:`train` (Adam, mini-batches, a tqdm progress bar) and :func:`evaluate`
(top-1 accuracy) work on in-memory tensors; :func:`count_weights` counts the
weights (parameters with two or more dimensions) and how many are zero.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

import torch
import torch.nn as nn
import torch.nn.functional as F

__all__ = ["SmallCNN", "count_weights", "evaluate", "predict", "train"]


class SmallCNN(nn.Module):
    """Three 3x3 conv layers and a linear classifier for 1x28x28 images (lab06).

    ``widths`` are the output channels of ``conv1``, ``conv2``, ``conv3``
    (default 16, 32, 64: 23,946 parameters). ``seed`` (optional) makes the
    initial weights reproducible without touching the global random state, so
    two models built with the same seed start identical.
    """

    def __init__(
        self, widths: Sequence[int] = (16, 32, 64), num_classes: int = 10, in_channels: int = 1, seed: int | None = None
    ) -> None:
        super().__init__()
        if len(widths) != 3 or min(widths) < 1:
            raise ValueError(f"widths must be three positive channel counts, got {tuple(widths)}")
        w0, w1, w2 = (int(w) for w in widths)
        with torch.random.fork_rng(devices=[]):
            if seed is not None:
                torch.manual_seed(seed)
            self.conv1 = nn.Conv2d(in_channels, w0, 3, padding=1)
            self.conv2 = nn.Conv2d(w0, w1, 3, padding=1)
            self.conv3 = nn.Conv2d(w1, w2, 3, padding=1)
            self.fc = nn.Linear(w2, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.conv3(x))
        return self.fc(x.mean(dim=(2, 3)))


LossFn = Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]


def train(
    model: nn.Module,
    images: torch.Tensor,
    labels: torch.Tensor,
    epochs: int,
    batch_size: int = 128,
    lr: float = 3e-3,
    loss_fn: LossFn | None = None,
    seed: int = 0,
    desc: str = "training",
    progress: bool = True,
) -> list[float]:
    """Train ``model`` in place with Adam on in-memory tensors; return the mean loss of each epoch (lab06).

    Each epoch visits every image once in a seeded random order (``seed``, so
    two runs with the same seed see the same batches). ``loss_fn(logits,
    labels, index)`` computes the loss of a batch, where ``index`` holds the
    batch's positions in ``images`` (to look up, say, precomputed teacher
    logits); the default is cross-entropy. A tqdm bar (``tqdm.auto``: a widget
    in Jupyter, text on stdout elsewhere) shows progress and the running loss;
    ``progress=False`` hides it. The model is left in training mode.
    """
    from tqdm.auto import tqdm

    if epochs < 0 or batch_size < 1:
        raise ValueError("epochs must be >= 0 and batch_size >= 1")
    if len(images) != len(labels):
        raise ValueError(f"{len(images)} images but {len(labels)} labels")
    loss_fn = loss_fn or (lambda logits, y, _index: F.cross_entropy(logits, y))
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=lr)
    generator = torch.Generator().manual_seed(seed)
    n = len(images)
    batches = (n + batch_size - 1) // batch_size
    history: list[float] = []
    model.train()
    with tqdm(total=epochs * batches, desc=desc, disable=not progress, file=sys.stdout, leave=True) as bar:
        for epoch in range(epochs):
            order = torch.randperm(n, generator=generator)
            total, seen = 0.0, 0
            for start in range(0, n, batch_size):
                index = order[start : start + batch_size]
                loss = loss_fn(model(images[index]), labels[index], index)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
                total += float(loss.detach()) * len(index)
                seen += len(index)
                bar.update(1)
                bar.set_postfix(epoch=epoch + 1, loss=f"{total / seen:.3f}")
            history.append(total / max(seen, 1))
    return history


@torch.no_grad()
def predict(
    model: Callable[[torch.Tensor], torch.Tensor],
    images: torch.Tensor,
    batch_size: int = 500,
    fixed_batch: bool = False,
) -> torch.Tensor:
    """Logits of ``model`` for every image, computed in batches without gradients (lab06).

    ``fixed_batch=True`` pads the last batch with zero images to ``batch_size``
    (and drops their outputs), for models compiled or exported for one static
    batch size. A ``nn.Module`` is put in eval mode and returned to its mode
    (an exported graph, which refuses ``eval()``, is called as it is).
    """
    was_training = isinstance(model, nn.Module) and model.training
    if was_training:
        try:
            model.eval()
        except NotImplementedError:  # a torch.export / PT2E graph refuses eval(): it has no train-only layers here
            was_training = False
    try:
        outputs = []
        for start in range(0, len(images), batch_size):
            batch = images[start : start + batch_size]
            n = len(batch)
            if fixed_batch and n < batch_size:
                batch = torch.cat([batch, batch.new_zeros((batch_size - n, *batch.shape[1:]))])
            outputs.append(model(batch)[:n])
        return torch.cat(outputs) if outputs else torch.empty(0)
    finally:
        if was_training:
            model.train()


def evaluate(
    model: Callable[[torch.Tensor], torch.Tensor],
    images: torch.Tensor,
    labels: torch.Tensor,
    batch_size: int = 500,
    fixed_batch: bool = False,
) -> float:
    """Top-1 accuracy (a fraction in [0, 1]) of ``model`` on ``images`` (lab06); see :func:`predict` for the options."""
    if len(images) == 0:
        raise ValueError("no images to evaluate on")
    logits = predict(model, images, batch_size=batch_size, fixed_batch=fixed_batch)
    return float((logits.argmax(dim=1) == labels).float().mean())


def count_weights(model: nn.Module) -> tuple[int, int]:
    """``(weights, zeros)``: how many weights the model has and how many of them are exactly zero (lab06).

    Weights are the ``weight`` tensors with two or more dimensions (conv
    kernels, linear matrices), the ones pruning and quantization act on; biases
    are left out. A layer pruned with ``torch.nn.utils.prune`` or wrapped by
    ``torch.nn.utils.parametrize`` is counted through its effective ``weight``.
    """
    total = zeros = 0
    with torch.no_grad():
        for module in model.modules():
            weight = getattr(module, "weight", None)
            if isinstance(weight, torch.Tensor) and weight.dim() >= 2:
                total += weight.numel()
                zeros += int((weight == 0).sum())
    return total, zeros
