"""hpml_lab_utils.models: the small CNN of lab06, its training loop, evaluation and weight counts."""

from hpml_lab_utils import models

import pytest
import torch
import torch.nn.utils.parametrize
import torch.nn.utils.prune
from torch import nn

pytestmark = pytest.mark.lab06


def _toy_data(n=96, seed=0):
    """Two classes that a CNN separates at once: bright top half vs bright bottom half."""
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(n, 1, 28, 28, generator=g) * 0.2
    y = torch.arange(n) % 2
    x[y == 0, :, :14] += 0.8
    x[y == 1, :, 14:] += 0.8
    return x, y


def test_shapes_layer_names_and_parameter_count():
    m = models.SmallCNN()
    assert [n for n, _ in m.named_children()] == ["conv1", "conv2", "conv3", "fc"]
    assert sum(p.numel() for p in m.parameters()) == 23_946
    assert m(torch.zeros(5, 1, 28, 28)).shape == (5, 10)
    small = models.SmallCNN((4, 8, 16), num_classes=3)
    assert small(torch.zeros(2, 1, 28, 28)).shape == (2, 3)
    assert small.fc.in_features == 16  # one input per conv3 channel (global average pool)
    with pytest.raises(ValueError):
        models.SmallCNN((4, 8))


def test_seed_makes_identical_models_without_touching_the_global_generator():
    torch.manual_seed(123)
    before = torch.random.get_rng_state()
    a, b = models.SmallCNN(seed=7), models.SmallCNN(seed=7)
    assert torch.equal(torch.random.get_rng_state(), before)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    c = models.SmallCNN(seed=8)
    assert not torch.equal(a.conv1.weight, c.conv1.weight)


def test_a_smaller_layer_can_replace_one():
    m = models.SmallCNN()
    m.conv3 = nn.Conv2d(32, 20, 3, padding=1)
    m.fc = nn.Linear(20, 10)
    assert m(torch.zeros(1, 1, 28, 28)).shape == (1, 10)


@pytest.mark.slow
def test_train_learns_a_toy_task_and_is_reproducible(capsys):
    x, y = _toy_data()
    m1, m2 = models.SmallCNN(seed=0), models.SmallCNN(seed=0)
    h1 = models.train(m1, x, y, epochs=6, batch_size=8, progress=False, seed=3)
    h2 = models.train(m2, x, y, epochs=6, batch_size=8, progress=False, seed=3)
    assert len(h1) == 6 and h1 == h2
    assert h1[-1] < h1[0]
    assert all(torch.equal(p, q) for p, q in zip(m1.parameters(), m2.parameters()))
    assert models.evaluate(m1, x, y) >= 0.9
    assert capsys.readouterr().err == ""  # nothing on stderr (nbgrader fails a cell that writes there)


def test_train_calls_loss_fn_with_batch_indices():
    x, y = _toy_data(40)
    seen = []

    def loss_fn(logits, labels, index):
        assert torch.equal(labels, y[index])
        seen.append(index.clone())
        return nn.functional.cross_entropy(logits, labels)

    models.train(models.SmallCNN(seed=0), x, y, epochs=2, batch_size=16, loss_fn=loss_fn, progress=False)
    assert len(seen) == 2 * 3  # 16 + 16 + 8 per epoch
    for epoch in range(2):
        assert sorted(torch.cat(seen[3 * epoch : 3 * epoch + 3]).tolist()) == list(range(40))


def test_progress_bar_goes_to_stdout(capsys):
    x, y = _toy_data(20)
    models.train(models.SmallCNN(seed=0), x, y, epochs=1, batch_size=10, desc="toy")
    out = capsys.readouterr()
    assert "toy" in out.out and out.err == ""


def test_train_rejects_mismatched_inputs():
    x, y = _toy_data(10)
    with pytest.raises(ValueError):
        models.train(models.SmallCNN(), x, y[:5], epochs=1, progress=False)


def test_predict_and_evaluate_batches_padding_and_mode():
    x, y = _toy_data(23)
    m = models.SmallCNN(seed=1)
    m.train()
    full = m.eval()(x).detach()
    m.train()
    assert torch.allclose(models.predict(m, x, batch_size=5), full, atol=1e-6)
    assert m.training  # mode restored
    seen_sizes = []

    def fixed(batch):
        seen_sizes.append(len(batch))
        return full.new_zeros(len(batch), 10)

    assert models.predict(fixed, x, batch_size=10, fixed_batch=True).shape == (23, 10)
    assert seen_sizes == [10, 10, 10]
    acc = models.evaluate(m, x, y, batch_size=7)
    assert acc == pytest.approx(float((full.argmax(1) == y).float().mean()))
    with pytest.raises(ValueError):
        models.evaluate(m, x[:0], y[:0])


def test_predict_calls_a_module_that_refuses_eval():
    class Exported(nn.Module):
        def eval(self):
            raise NotImplementedError("exported models cannot switch mode")

        def forward(self, batch):
            return batch.flatten(1)[:, :3]

    out = models.predict(Exported(), torch.ones(4, 1, 2, 2), batch_size=3)
    assert out.shape == (4, 3)


def test_count_weights_sees_pruned_and_parametrized_layers():
    m = models.SmallCNN()
    total, zeros = models.count_weights(m)
    assert (total, zeros) == (16 * 9 + 32 * 16 * 9 + 64 * 32 * 9 + 10 * 64, 0)
    with torch.no_grad():
        m.fc.weight[:, :4] = 0
    assert models.count_weights(m) == (total, 40)
    torch.nn.utils.prune.l1_unstructured(m.conv1, "weight", amount=10)
    assert models.count_weights(m) == (total, 50)

    class Zero(nn.Module):
        def forward(self, w):
            return w * (w.abs() > 1e9)

    torch.nn.utils.parametrize.register_parametrization(m.conv2, "weight", Zero())
    assert models.count_weights(m) == (total, 50 + 32 * 16 * 9)
