"""Helpers for neural architecture search (weeks 12-13, lab08): proxy accuracy, caches, Pareto plots.

Nothing here is graded: the lab's graded functions (search space, cost models,
latency predictor, Pareto front, searches) are written by the student in the
notebook. This module gives the search something to optimise:

* :func:`arch_key` turns an architecture dict into a canonical string (sorted
  JSON), the key of every cache;
* :class:`ArchCache` wraps ``fn(arch)`` so each architecture is computed once
  per run (latency measurements, proxy accuracies) and counts calls and misses;
* :func:`proxy_data` makes a small train/test split of the lab02 data set
  (:class:`hpml_lab_utils.data.SyntheticImages`);
* :class:`ProxyAccuracy` trains a freshly built model for a few epochs on it and
  returns the test accuracy: a cheap *proxy* for the accuracy after full
  training, cached per architecture;
* :func:`plot_pareto` draws evaluated points and their Pareto front (lower
  latency, higher accuracy is better) on a matplotlib ``Axes``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["ArchCache", "ProxyAccuracy", "arch_key", "plot_pareto", "proxy_data"]


def arch_key(arch: dict) -> str:
    """Canonical key of an architecture dict: JSON with sorted keys (lab08).

    Two dicts with the same entries give the same key whatever their key order;
    tuples and lists of the same values give the same key.
    """
    return json.dumps(arch, sort_keys=True, separators=(",", ":"))


class ArchCache:
    """``fn(arch)`` computed once per architecture within the run (lab08).

    ``cache(arch)`` returns the stored value when :func:`arch_key` of ``arch``
    was seen before. ``calls`` counts every call, ``misses`` the ones that ran
    ``fn``, ``seconds`` the time spent in ``fn``; ``values`` maps keys to results.
    """

    def __init__(self, fn: Callable[[dict], Any]) -> None:
        self.fn = fn
        self.values: dict[str, Any] = {}
        self.calls = 0
        self.misses = 0
        self.seconds = 0.0

    def __call__(self, arch: dict) -> Any:
        self.calls += 1
        key = arch_key(arch)
        if key not in self.values:
            self.misses += 1
            start = time.perf_counter()
            self.values[key] = self.fn(arch)
            self.seconds += time.perf_counter() - start
        return self.values[key]

    def __len__(self) -> int:
        return len(self.values)


def proxy_data(n_train: int, n_test: int, size: int = 32, num_classes: int = 10, noise: float = 0.8, seed: int = 0):
    """A train/test split of the lab02 synthetic images: ``(x_train, y_train, x_test, y_test)`` tensors (lab08).

    Images are float32 ``(n, 3, size, size)``, labels int64 in ``[0, num_classes)``; ``noise`` is the
    std of the pixel noise (the class patterns have std 1: lower is easier to learn);
    the test images are further items of the same seeded data set (never seen in training).
    """
    from .data import SyntheticImages

    if n_train < 1 or n_test < 1:
        raise ValueError("n_train and n_test must be at least 1")
    data = SyntheticImages(n_train + n_test, num_classes=num_classes, size=size, noise=noise, seed=seed)
    images, labels = data.tensors()
    return images[:n_train], labels[:n_train], images[n_train:], labels[n_train:]


class ProxyAccuracy:
    """Test accuracy after a short training run, cached per architecture (weeks 12-13, lab08).

    ``proxy(arch)`` builds ``build_model(arch)`` with torch seeded by ``seed``
    (the global random state is restored afterwards), trains it for ``epochs``
    epochs with :func:`hpml_lab_utils.models.train` (Adam, learning rate ``lr``,
    batches of ``batch_size``, a seeded order) on ``data[:2]`` and returns its
    top-1 accuracy (a fraction) on ``data[2:]``. A few epochs rank architectures
    roughly as full training would, at a small fraction of the cost: that is the
    proxy. Accuracies are cached by :func:`arch_key`; ``trainings`` counts the
    models actually trained, ``calls`` all lookups, ``seconds`` the training time.
    """

    def __init__(
        self,
        build_model: Callable[[dict], Any],
        data: Sequence,
        epochs: int = 2,
        batch_size: int = 64,
        lr: float = 3e-3,
        seed: int = 0,
    ) -> None:
        if len(data) != 4:
            raise ValueError("data must be (x_train, y_train, x_test, y_test), as proxy_data returns")
        if epochs < 1:
            raise ValueError("epochs must be at least 1")
        self.build_model = build_model
        self.data = tuple(data)
        self.epochs, self.batch_size, self.lr, self.seed = int(epochs), int(batch_size), float(lr), int(seed)
        self._cache = ArchCache(self._train_and_evaluate)

    def _train_and_evaluate(self, arch: dict) -> float:
        import torch

        from .models import evaluate, train

        x_train, y_train, x_test, y_test = self.data
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(self.seed)
            model = self.build_model(arch)
        train(
            model,
            x_train,
            y_train,
            epochs=self.epochs,
            batch_size=self.batch_size,
            lr=self.lr,
            seed=self.seed,
            progress=False,
        )
        return evaluate(model, x_test, y_test)

    def __call__(self, arch: dict) -> float:
        return self._cache(arch)

    @property
    def trainings(self) -> int:
        return self._cache.misses

    @property
    def calls(self) -> int:
        return self._cache.calls

    @property
    def seconds(self) -> float:
        return self._cache.seconds


def plot_pareto(
    ax,
    points: Sequence[tuple[float, float]],
    front: Sequence[int],
    label: str,
    color: str = "tab:blue",
    marker: str = "o",
):
    """Scatter ``points`` (latency, accuracy) and join the Pareto-front indices ``front`` by a staircase (lab08).

    The front is drawn sorted by latency as a step line (lower latency and
    higher accuracy are better: up and to the left). Returns ``ax``.
    """
    if points:
        xs, ys = zip(*points)
        ax.scatter(xs, ys, s=18, alpha=0.35, color=color, marker=marker)
    best = sorted((points[i] for i in front), key=lambda p: (p[0], -p[1]))
    if best:
        fx, fy = zip(*best)
        ax.step(fx, fy, where="post", color=color, linewidth=1.5)
        ax.scatter(
            fx, fy, s=40, color=color, marker=marker, edgecolor="black", label=f"{label} ({len(best)} on the front)"
        )
    ax.set_xlabel("latency (ms)")
    ax.set_ylabel("accuracy")
    return ax
