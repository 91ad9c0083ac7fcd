"""hpml_lab_utils.nas: architecture keys, caches, proxy data and accuracy, Pareto plots (lab08)."""

from hpml_lab_utils import nas

import pytest
import torch
from torch import nn

pytestmark = pytest.mark.lab08


@pytest.fixture(autouse=True)
def one_thread():
    """Tiny models: one torch thread is as fast, and far faster on a busy machine (threads wait for each other)."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


def _tiny_model(arch):
    """A small stand-in for the lab's build_model: one conv of `width` channels and a linear head."""
    width = arch["width"]
    return nn.Sequential(
        nn.Conv2d(3, width, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(width, 4)
    )


def test_arch_key_ignores_key_order_and_list_type():
    a = {"depth": 2, "width_mult": 0.5, "kernel_sizes": [3, 5], "separable": [False, True]}
    b = {"separable": (False, True), "kernel_sizes": (3, 5), "width_mult": 0.5, "depth": 2}
    assert nas.arch_key(a) == nas.arch_key(b)
    assert nas.arch_key(a) != nas.arch_key(dict(a, kernel_sizes=[5, 3]))
    assert nas.arch_key(a) != nas.arch_key(dict(a, width_mult=0.75))


def test_arch_cache_computes_each_architecture_once():
    seen = []
    cache = nas.ArchCache(lambda arch: seen.append(arch) or arch["width"] * 10)
    assert cache({"width": 1}) == 10
    assert cache({"width": 2}) == 20
    assert cache({"width": 1}) == 10
    assert (cache.calls, cache.misses, len(cache), len(seen)) == (3, 2, 2, 2)
    assert cache.seconds >= 0.0


def test_proxy_data_shapes_labels_and_split():
    x_train, y_train, x_test, y_test = nas.proxy_data(30, 20, size=8, num_classes=5, seed=1)
    assert x_train.shape == (30, 3, 8, 8) and x_test.shape == (20, 3, 8, 8)
    assert x_train.dtype == torch.float32 and y_train.dtype == torch.int64
    assert set(y_train.tolist()) | set(y_test.tolist()) <= set(range(5))
    assert not torch.equal(x_train[:20], x_test)  # the test images are other items
    again = nas.proxy_data(30, 20, size=8, num_classes=5, seed=1)
    assert torch.equal(again[0], x_train) and torch.equal(again[3], y_test)
    easier = nas.proxy_data(30, 20, size=8, num_classes=5, noise=0.1, seed=1)[0]
    assert easier.std() < x_train.std()
    with pytest.raises(ValueError):
        nas.proxy_data(0, 5)


def test_proxy_accuracy_trains_once_per_architecture_and_is_reproducible():
    data = nas.proxy_data(64, 32, size=8, num_classes=4, seed=0)
    built = []

    def build(arch):
        built.append(arch)
        return _tiny_model(arch)

    proxy = nas.ProxyAccuracy(build, data, epochs=1, batch_size=16, seed=3)
    acc = proxy({"width": 4})
    assert 0.0 <= acc <= 1.0
    assert proxy({"width": 4}) == acc
    proxy({"width": 6})
    assert (proxy.trainings, proxy.calls, len(built)) == (2, 3, 2)
    assert proxy.seconds > 0.0
    state = torch.random.get_rng_state()
    other = nas.ProxyAccuracy(_tiny_model, data, epochs=1, batch_size=16, seed=3)
    assert other({"width": 4}) == acc  # same seed: same initial weights, same batches
    assert torch.equal(torch.random.get_rng_state(), state)  # building does not move the global generator
    with pytest.raises(ValueError):
        nas.ProxyAccuracy(_tiny_model, data[:2])
    with pytest.raises(ValueError):
        nas.ProxyAccuracy(_tiny_model, data, epochs=0)


def test_plot_pareto_draws_points_and_front():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    points = [(1.0, 0.5), (2.0, 0.7), (2.5, 0.6), (3.0, 0.9)]
    out = nas.plot_pareto(ax, points, [0, 1, 3], "random")
    assert out is ax
    assert len(ax.collections) == 2  # all points, then the front's markers
    [step] = ax.lines
    assert list(step.get_xdata()) == [1.0, 2.0, 3.0]
    assert ax.get_xlabel() == "latency (ms)" and ax.get_legend_handles_labels()[1] == ["random (3 on the front)"]
    empty_fig, empty_ax = plt.subplots()
    nas.plot_pareto(empty_ax, [], [], "none")
    assert not empty_ax.lines
    plt.close(fig)
    plt.close(empty_fig)
