"""hpml_lab_utils.transformer: the text, the character tokenizer, TinyGPT and its KV cache, training, peak memory."""

import math

from hpml_lab_utils import transformer

import pytest
import torch
from torch.nn import functional as F

pytestmark = pytest.mark.lab07


def _small_model(vocab=11, seed=0, block_size=48):
    return transformer.TinyGPT(vocab, block_size=block_size, n_layer=2, n_head=2, n_embd=16, seed=seed).eval()


def test_text_ships_with_the_package_and_loads_offline():
    text = transformer.load_text()
    assert len(text) == 63_889
    assert text.startswith("First Citizen:\nBefore we proceed any further, hear me speak.\n")
    assert text.endswith("And pass'd him unelected.\n")
    assert text.isascii() and "\r" not in text


def test_tokenizer_round_trip_and_vocabulary():
    text = transformer.load_text()
    tok = transformer.CharTokenizer(text)
    assert tok.vocab_size == len(set(text)) and tok.chars == sorted(tok.chars)
    ids = tok.encode(text[:500])
    assert ids.dtype == torch.long and ids.shape == (500,)
    assert tok.decode(ids) == text[:500]
    assert tok.decode(ids.tolist()) == text[:500]
    with pytest.raises(ValueError, match="not in the vocabulary"):
        tok.encode("#")


def test_model_output_shapes_and_cache_layout():
    model = _small_model()
    idx = torch.randint(0, 11, (3, 7))
    logits, present = model(idx)
    assert logits.shape == (3, 7, 11)
    assert len(present) == 2
    assert all(k.shape == v.shape == (3, 2, 7, 8) for k, v in present)
    logits, present = model(idx[:, :1], past_kv=present)
    assert logits.shape == (3, 1, 11) and present[0][0].shape == (3, 2, 8, 8)
    with pytest.raises(ValueError, match="block_size"):
        model(torch.zeros(1, 49, dtype=torch.long))


def test_seed_makes_identical_models():
    a, b = _small_model(seed=3), _small_model(seed=3)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    assert not torch.equal(a.head.weight, _small_model(seed=4).head.weight)


@pytest.mark.slow
def test_cache_gives_the_logits_and_greedy_tokens_of_the_full_forward():
    model = _small_model(seed=1)
    idx = torch.randint(0, 11, (2, 30), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        full, _ = model(idx)
        first, past = model(idx[:, :12])  # a prompt
        one, past = model(idx[:, 12:13], past)  # one token
        rest, past = model(idx[:, 13:], past)  # several tokens at once
    assert torch.allclose(torch.cat([first, one, rest], 1), full, atol=1e-5)
    # greedy decoding with and without the cache
    with torch.no_grad():
        ids = idx[:, :5]
        for _ in range(20):
            ids = torch.cat([ids, model(ids)[0][:, -1].argmax(-1, keepdim=True)], 1)
        cached = idx[:, :5]
        logits, past = model(cached)
        for _ in range(20):
            nxt = logits[:, -1].argmax(-1, keepdim=True)
            cached = torch.cat([cached, nxt], 1)
            logits, past = model(nxt, past)
    assert torch.equal(ids, cached)


def test_random_windows_are_seeded_next_token_pairs_that_reach_the_last_token():
    ids = torch.arange(12)
    x, y = transformer.random_windows(ids, 400, 5, torch.Generator().manual_seed(3))
    assert x.shape == y.shape == (400, 5) and x.dtype == ids.dtype
    assert torch.equal(y[:, :-1], x[:, 1:]) and torch.equal(y[:, -1], x[:, -1] + 1)  # ids[i] == i
    assert set(x[:, 0].tolist()) == set(range(12 - 5))  # every start 0 .. len - seq_len - 1, no further
    again = transformer.random_windows(ids, 400, 5, torch.Generator().manual_seed(3))
    assert torch.equal(again[0], x) and torch.equal(again[1], y)


@pytest.mark.slow
def test_a_few_training_steps_reduce_the_loss_and_only_trainable_parameters_move():
    text = transformer.load_text()[:3000]
    tok = transformer.CharTokenizer(text)
    ids = tok.encode(text)
    model = transformer.TinyGPT(tok.vocab_size, block_size=32, n_layer=1, n_head=2, n_embd=32, seed=0)
    before = transformer.evaluate_loss(model, ids)
    model.tok_emb.weight.requires_grad_(False)
    frozen = model.tok_emb.weight.detach().clone()
    losses = transformer.train_tiny_gpt(model, ids, steps=40, batch_size=8, lr=1e-2, progress=False)
    assert len(losses) == 40 and not model.training
    assert before == pytest.approx(math.log(tok.vocab_size), rel=0.05)  # an untrained model guesses uniformly
    assert transformer.evaluate_loss(model, ids) < before - 0.5
    assert torch.equal(model.tok_emb.weight, frozen)
    with pytest.raises(ValueError, match="no trainable parameters"):
        transformer.train_tiny_gpt(model.requires_grad_(False), ids, steps=1, progress=False)


def test_peak_memory_sees_the_score_matrix_of_naive_attention_only():
    q = torch.randn(1, 2, 512, 16)

    def naive(q, k, v):
        return torch.softmax(q @ k.transpose(-2, -1) / 4.0, dim=-1) @ v

    scores_bytes = 2 * 512 * 512 * 4
    naive_peak, how = transformer.peak_memory_bytes(naive, q, q, q)
    sdpa_peak, _ = transformer.peak_memory_bytes(F.scaled_dot_product_attention, q, q, q)
    assert "TorchDispatchMode" in how
    assert naive_peak >= 2 * scores_bytes  # scores and probabilities alive together
    assert sdpa_peak < scores_bytes / 4
    assert transformer.peak_memory_bytes(lambda x: x.add_(1), q.clone())[0] == 0  # in place: nothing new


def test_sdpa_backend_names_the_kernel_that_ran():
    from hpml_lab_utils.transformer import sdpa_backend

    q = torch.randn(1, 2, 32, 16)
    fused = sdpa_backend(q, q, q, is_causal=True)
    assert "aten::_scaled_dot_product" in fused  # a fused kernel on any machine with a recent torch
    with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH):
        assert sdpa_backend(q, q, q, is_causal=True).startswith("math")
