"""Offline data for the labs: synthetic images (week 3, lab02) and real silhouettes (weeks 8-10, lab06).

:func:`animal_shapes` loads Animal-Shape, 10,000 real 28x28 grayscale animal
silhouettes in 10 balanced classes (MIT licence), from the files inside the
installed ``animal-shape-mnist`` package; :func:`animal_shapes_split` makes
seeded train/test tensors of it.

Nothing is downloaded. :class:`SyntheticImages` stands in for CIFAR-10 in the
profiling lab: ``n`` RGB images of ``size`` x ``size`` pixels in ``num_classes``
classes. Each class has its own smooth colour pattern (a sum of a few random
low-frequency sinusoids per channel); an image is its class pattern, randomly
shifted, flipped and scaled in brightness, plus Gaussian pixel noise. A
ResNet learns it in a few hundred steps, so loss curves fall visibly, and
small models do not reach 100% at once.

Every image is *made in* ``__getitem__`` (seeded by the index, so item ``i`` is
the same on every call and in every worker process), which costs real CPU
time per item like JPEG decoding and augmentation do: that is what makes
``DataLoader(num_workers=...)`` matter. ``work`` repeats the pattern synthesis
to make loading heavier or lighter.

Pixel values are float32, roughly zero mean and unit variance; labels are
``int64`` in ``[0, num_classes)`` and balanced (item ``i`` has class ``i % num_classes``).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["ANIMAL_CLASSES", "SyntheticImages", "animal_shapes", "animal_shapes_split", "class_patterns"]


def class_patterns(num_classes: int, size: int, channels: int = 3, seed: int = 0, waves: int = 4) -> np.ndarray:
    """One smooth pattern per class, shape ``(num_classes, channels, size, size)``, float32, unit std.

    Each channel of each class is a sum of ``waves`` sinusoids with random integer
    frequencies 1..3 along each axis, random phases and amplitudes (seeded).
    """
    if num_classes < 1 or size < 1 or channels < 1:
        raise ValueError("num_classes, size and channels must be at least 1")
    rng = np.random.default_rng(seed)
    grid = np.arange(size, dtype=np.float64) / size
    yy, xx = np.meshgrid(grid, grid, indexing="ij")
    out = np.zeros((num_classes, channels, size, size))
    for c in range(num_classes):
        for ch in range(channels):
            for _ in range(waves):
                fy, fx = rng.integers(1, 4, size=2)
                phase = rng.uniform(0, 2 * math.pi)
                out[c, ch] += rng.uniform(0.5, 1.0) * np.sin(2 * math.pi * (fy * yy + fx * xx) + phase)
    out /= out.std(axis=(1, 2, 3), keepdims=True) + 1e-12
    return out.astype(np.float32)


class SyntheticImages:
    """A map-style dataset of synthetic images (see the module docstring); works with ``torch.utils.data``.

    ``dataset[i]`` returns ``(image, label)``: a float32 ``torch.Tensor`` of shape
    ``(channels, size, size)`` and a Python ``int``. ``noise`` is the std of the pixel
    noise (the patterns have std 1); ``work`` (>= 1) is how many times the per-item
    synthesis is repeated, to make loading costlier. Picklable, so worker processes
    can use it.
    """

    def __init__(
        self,
        n: int,
        num_classes: int = 10,
        size: int = 32,
        channels: int = 3,
        noise: float = 0.8,
        seed: int = 0,
        work: int = 1,
    ) -> None:
        if n < 0:
            raise ValueError("n must be non-negative")
        if work < 1:
            raise ValueError("work must be at least 1")
        self.n, self.num_classes, self.size, self.channels = int(n), int(num_classes), int(size), int(channels)
        self.noise, self.seed, self.work = float(noise), int(seed), int(work)
        self.patterns = class_patterns(self.num_classes, self.size, self.channels, seed=self.seed)

    def __len__(self) -> int:
        return self.n

    def label(self, index: int) -> int:
        """Class of item ``index``: ``index % num_classes``."""
        return int(index) % self.num_classes

    def _image(self, index: int) -> np.ndarray:
        rng = np.random.default_rng((self.seed, int(index)))
        img = self.patterns[self.label(index)].astype(np.float64)
        for _ in range(self.work):  # the "decode + augment" cost, repeated `work` times
            shift = rng.integers(-self.size // 4, self.size // 4 + 1, size=2)
            out = np.roll(img, tuple(int(s) for s in shift), axis=(1, 2))
            if rng.random() < 0.5:
                out = out[:, :, ::-1]
            out = out * rng.uniform(0.7, 1.3) + rng.normal(0.0, self.noise, size=out.shape)
        return np.ascontiguousarray(out, dtype=np.float32)

    def __getitem__(self, index: int):
        import torch

        if not -self.n <= index < self.n:
            raise IndexError(f"index {index} out of range for {self.n} items")
        index = index % self.n
        return torch.from_numpy(self._image(index)), self.label(index)

    def tensors(self):
        """All items at once as ``(images, labels)`` tensors (images ``(n, C, H, W)`` float32, labels int64)."""
        import torch

        images = (
            np.stack([self._image(i) for i in range(self.n)])
            if self.n
            else np.zeros((0, self.channels, self.size, self.size), np.float32)
        )
        labels = np.array([self.label(i) for i in range(self.n)], dtype=np.int64)
        return torch.from_numpy(images), torch.from_numpy(labels)

    def __repr__(self) -> str:
        return (
            f"SyntheticImages(n={self.n}, num_classes={self.num_classes}, size={self.size}, "
            f"channels={self.channels}, noise={self.noise}, seed={self.seed}, work={self.work})"
        )


#: Animal-Shape's class names, in label order (checked by looking at samples of each label)
ANIMAL_CLASSES = ("bear", "bird", "cat", "cow", "dog", "elephant", "giraffe", "horse", "sheep", "zebra")


def animal_shapes() -> tuple[np.ndarray, np.ndarray]:
    """All of Animal-Shape: ``(images, labels)``, uint8 ``(10000, 28, 28)`` in 0..255 and int64 ``(10000,)``.

    Read from the package's data files (its own loader module imports
    tensorflow, so it is not used). Labels come sorted by class: shuffle
    before splitting (:func:`animal_shapes_split` does).
    """
    import gzip
    import importlib.resources
    import pickle

    try:
        folder = importlib.resources.files("animal_shape_mnist") / "data" / "Animal Shape"
    except ModuleNotFoundError as err:
        raise ModuleNotFoundError(
            "Animal-Shape ships in the animal-shape-mnist package: `make setup` installs it "
            "(or pip install animal-shape-mnist)"
        ) from err
    with gzip.open(folder / "animal_data_version_3.gz", "rb") as f:
        images = pickle.load(f)  # trusted: a numpy array in the installed package's own data file
    with gzip.open(folder / "animal_label_version_3.gz", "rb") as f:
        labels = pickle.load(f)
    images, labels = np.asarray(images, dtype=np.uint8), np.asarray(labels, dtype=np.int64)
    if images.shape != (len(labels), 28, 28):
        raise ValueError(f"unexpected Animal-Shape arrays: images {images.shape}, labels {labels.shape}")
    return images, labels


def animal_shapes_split(test_fraction: float = 0.2, seed: int = 0, n: int | None = None):
    """Seeded, class-balanced train/test split of Animal-Shape as torch tensors.

    Returns ``(x_train, y_train, x_test, y_test)``: images float32
    ``(N, 1, 28, 28)`` scaled to [0, 1], labels int64. ``n`` keeps only the
    first ``n`` images of a seeded shuffle (fast mode), still balanced to
    within one image per class.
    """
    import torch

    if not 0.0 < test_fraction < 1.0:
        raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction}")
    images, labels = animal_shapes()
    rng = np.random.default_rng(seed)
    per_class = [rng.permutation(np.flatnonzero(labels == c)) for c in range(len(ANIMAL_CLASSES))]
    order = np.stack(per_class, axis=1).reshape(-1)  # round-robin over classes: every prefix is balanced
    if n is not None:
        order = order[:n]
    n_test = int(round(len(order) * test_fraction))
    test_idx, train_idx = rng.permutation(order[:n_test]), rng.permutation(order[n_test:])
    x = torch.from_numpy(images.astype(np.float32) / 255.0).unsqueeze(1)
    y = torch.from_numpy(labels)
    return x[train_idx], y[train_idx], x[test_idx], y[test_idx]
