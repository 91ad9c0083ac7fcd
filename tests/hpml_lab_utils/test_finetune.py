"""hpml_lab_utils.finetune: the lab14 helpers (the baselines and TinyGPT's forward with the caller's linears)."""

from hpml_lab_utils.finetune import (
    NF4Tensor,
    fake_quantize_int4,
    fake_quantize_int4_absmax,
    forward_with_linears,
)
from hpml_lab_utils.transformer import TinyGPT

import pytest
import torch


def test_forward_with_linears_is_the_model_and_right_padding_keeps_each_row():
    model = TinyGPT(19, block_size=24, n_layer=2, n_head=2, n_embd=16, seed=0).eval()
    idx = torch.randint(0, 19, (3, 9), generator=torch.Generator().manual_seed(0))
    names = []

    def plain(name, layer, x):
        names.append(name)
        return layer(x)

    with torch.no_grad():
        torch.testing.assert_close(forward_with_linears(model, idx, plain), model(idx)[0])
        alone = forward_with_linears(model, idx[:1, :5], lambda n, layer, x: layer(x))
        padded = forward_with_linears(model, torch.cat([idx[:1, :5], idx[:1, 5:]], dim=1), lambda n, layer, x: layer(x))
    torch.testing.assert_close(padded[:, :5], alone)  # causal: what follows a row's end changes nothing before it
    assert names[:4] == ["blocks.0.attn.qkv", "blocks.0.attn.proj", "blocks.0.mlp.fc", "blocks.0.mlp.proj"]
    with pytest.raises(ValueError, match="block_size"):
        forward_with_linears(model, torch.zeros(1, 25, dtype=torch.long), plain)


def test_int4_round_to_nearest_uses_16_levels_per_group_and_is_exact_on_them():
    w = torch.randn(8, 64, generator=torch.Generator().manual_seed(1))
    q = fake_quantize_int4(w, group_size=16)
    for group in q.reshape(8, 4, 16).unbind(1):
        for row in group:
            assert len(torch.unique(row)) <= 16
    assert float((q - w).abs().max()) <= float((w.reshape(8, 4, 16).amax(-1) - w.reshape(8, 4, 16).amin(-1)).max()) / 15
    torch.testing.assert_close(fake_quantize_int4(q, group_size=16), q, atol=1e-6, rtol=1e-6)  # idempotent
    with pytest.raises(ValueError, match="multiple of group_size"):
        fake_quantize_int4(w, group_size=24)


def test_int4_absmax_keeps_the_block_maxima_and_zero_blocks():
    w = torch.randn(5, 13, generator=torch.Generator().manual_seed(2))
    w[0] = 0.0
    q = fake_quantize_int4_absmax(w, block_size=13)
    assert q.shape == w.shape and q.dtype == torch.float32
    assert bool((q[0] == 0).all())
    torch.testing.assert_close(q.abs().amax(1), w.abs().amax(1))
    assert float((q - w).abs().max()) <= float(w.abs().max()) / 14 + 1e-6  # half a step of absmax / 7


def test_nf4_tensor_counts_its_bytes():
    plain = NF4Tensor(torch.zeros(5, dtype=torch.uint8), torch.zeros(2), None, None, (9,), 8)
    assert plain.nbytes() == 5 + 2 * 4
    double = NF4Tensor(
        torch.zeros(5, dtype=torch.uint8), torch.zeros(2, dtype=torch.int8), torch.zeros(1), 0.5, (9,), 8
    )
    assert double.nbytes() == 5 + 2 + 4 + 4
