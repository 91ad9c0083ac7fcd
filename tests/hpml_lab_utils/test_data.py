"""hpml_lab_utils.data: synthetic, seeded, class-structured images."""

import pickle

from hpml_lab_utils.data import SyntheticImages, class_patterns

import numpy as np
import pytest
import torch


def test_patterns_shape_dtype_and_scale():
    p = class_patterns(4, 8, channels=2, seed=3)
    assert p.shape == (4, 2, 8, 8) and p.dtype == np.float32
    np.testing.assert_allclose(p.std(axis=(1, 2, 3)), 1.0, rtol=1e-4)
    assert not np.allclose(p[0], p[1])


def test_item_shape_label_and_determinism():
    ds = SyntheticImages(25, num_classes=10, size=12, seed=1)
    x, y = ds[13]
    assert isinstance(x, torch.Tensor) and x.shape == (3, 12, 12) and x.dtype == torch.float32
    assert y == 3 and isinstance(y, int)
    assert torch.equal(ds[13][0], x)
    assert not torch.equal(ds[3][0], x)  # same class, different item
    assert torch.equal(ds[-1][0], ds[24][0])
    with pytest.raises(IndexError):
        ds[25]


def test_seed_changes_data_and_pickles():
    a, b = SyntheticImages(4, size=8, seed=0), SyntheticImages(4, size=8, seed=1)
    assert not torch.equal(a[0][0], b[0][0])
    c = pickle.loads(pickle.dumps(a))
    assert torch.equal(c[2][0], a[2][0])


def test_tensors_matches_items_and_classes_are_balanced():
    ds = SyntheticImages(20, num_classes=4, size=6)
    x, y = ds.tensors()
    assert x.shape == (20, 3, 6, 6) and y.dtype == torch.int64
    assert torch.equal(x[7], ds[7][0])
    assert torch.bincount(y).tolist() == [5, 5, 5, 5]


def test_classes_are_separable_by_nearest_pattern():
    ds = SyntheticImages(60, num_classes=3, size=16, noise=0.3, seed=2)
    x, y = ds.tensors()
    # correlation with each unshifted class pattern, maximised over circular shifts, is a weak
    # classifier; a much simpler check: class means differ more than the noise within a class
    means = torch.stack([x[y == c].mean(0) for c in range(3)])
    assert (means[0] - means[1]).abs().mean() > 0.05


def test_bad_arguments():
    with pytest.raises(ValueError):
        SyntheticImages(-1)
    with pytest.raises(ValueError):
        SyntheticImages(3, work=0)
    with pytest.raises(ValueError):
        class_patterns(0, 4)
    assert len(SyntheticImages(0)) == 0 and SyntheticImages(0).tensors()[0].shape == (0, 3, 32, 32)


def test_animal_shapes_are_the_real_silhouettes():
    from hpml_lab_utils.data import ANIMAL_CLASSES, animal_shapes

    images, labels = animal_shapes()
    assert images.shape == (10_000, 28, 28) and images.dtype == np.uint8
    assert np.bincount(labels).tolist() == [1000] * len(ANIMAL_CLASSES)
    assert images.min() == 0 and images.max() == 255
    # silhouettes: mostly black background, a white shape
    assert 0.05 < (images > 127).mean() < 0.6


def test_animal_shapes_split_is_seeded_balanced_and_disjoint():
    from hpml_lab_utils.data import animal_shapes_split

    x_tr, y_tr, x_te, y_te = animal_shapes_split(test_fraction=0.25, seed=3, n=1000)
    assert x_tr.shape == (750, 1, 28, 28) and x_te.shape == (250, 1, 28, 28)
    assert float(x_tr.max()) <= 1.0 and float(x_tr.min()) >= 0.0
    counts = np.bincount(np.concatenate([y_tr.numpy(), y_te.numpy()]), minlength=10)
    assert counts.tolist() == [100] * 10
    again = animal_shapes_split(test_fraction=0.25, seed=3, n=1000)
    assert all((a == b).all() for a, b in zip((x_tr, y_tr, x_te, y_te), again))
    flat_tr = {bytes(t.numpy().tobytes()) for t in x_tr}
    assert not any(bytes(t.numpy().tobytes()) in flat_tr for t in x_te[:50]), "train and test overlap"
