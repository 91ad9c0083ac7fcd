"""hpml_lab_utils.serving (lab09's records and workload), transformer.forward_with_attention, checks.graded_alone."""

import math

from hpml_lab_utils import checks, serving, transformer

import pytest
import torch
from torch.nn import functional as F

pytestmark = pytest.mark.lab09


def test_poisson_requests_are_seeded_and_have_exponential_gaps():
    a = serving.poisson_requests(2000, 50.0, (3, 9), (1, 4), vocab_size=11, seed=5)
    assert a == serving.poisson_requests(2000, 50.0, (3, 9), (1, 4), vocab_size=11, seed=5)
    assert a != serving.poisson_requests(2000, 50.0, (3, 9), (1, 4), vocab_size=11, seed=6)
    assert [r.request_id for r in a] == list(range(2000))
    gaps = [a[0].arrival] + [b.arrival - p.arrival for p, b in zip(a, a[1:])]
    assert all(g >= 0 for g in gaps)
    mean = sum(gaps) / len(gaps)
    assert abs(mean - 1 / 50) < 0.1 / 50  # 2000 exponential gaps: the mean is within 10% of 1 / rate
    # an exponential's standard deviation equals its mean
    sd = math.sqrt(sum((g - mean) ** 2 for g in gaps) / len(gaps))
    assert abs(sd / mean - 1) < 0.15
    assert all(3 <= len(r.prompt) <= 9 and 1 <= r.max_new_tokens <= 4 for r in a)
    assert all(0 <= t < 11 for r in a for t in r.prompt)
    assert {len(r.prompt) for r in a} == set(range(3, 10))  # inclusive ranges


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(n=3, rate=0.0), "rate > 0"),
        (dict(n=-1, rate=1.0), "n >= 0"),
        (dict(n=3, rate=1.0, prompt_lengths=(0, 4)), "prompt_lengths"),
        (dict(n=3, rate=1.0, output_lengths=(5, 2)), "output_lengths"),
    ],
)
def test_poisson_requests_rejects_bad_arguments(kwargs, message):
    args = dict(prompt_lengths=(1, 2), output_lengths=(1, 2), vocab_size=5) | kwargs
    with pytest.raises(ValueError, match=message):
        serving.poisson_requests(**args)


def test_latency_percentiles_match_numpy_and_handle_no_values():
    values = [0.5, 0.1, 0.9, 0.3, 0.7, 0.2, 0.8, 0.4, 0.6, 1.0]
    got = serving.latency_percentiles(values)
    assert got["p50"] == pytest.approx(0.55)
    assert got["p95"] == pytest.approx(0.955)
    assert got["p99"] == pytest.approx(0.991)
    assert all(math.isnan(v) for v in serving.latency_percentiles([]).values())


def test_sequence_from_request_tokens_and_done():
    r = serving.Request(7, (1, 2, 3), max_new_tokens=2, arrival=1.5)
    s = serving.Sequence.from_request(r)
    assert (s.seq_id, s.prompt, s.max_new_tokens, s.arrival) == (7, [1, 2, 3], 2, 1.5)
    assert s.tokens == [1, 2, 3] and not s.done and s.blocks == [] and s.num_cached == 0
    s.output += [4, 5]
    assert s.tokens == [1, 2, 3, 4, 5] and s.done
    assert r.prompt == (1, 2, 3)  # the request is not touched


def test_forward_with_attention_is_the_models_forward_pass():
    model = transformer.TinyGPT(13, block_size=32, n_layer=2, n_head=2, n_embd=16, seed=2).eval()
    idx = torch.randint(0, 13, (3, 9), generator=torch.Generator().manual_seed(0))
    seen = []

    def causal(layer, q, k, v):
        seen.append((layer, tuple(q.shape)))
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)

    with torch.no_grad():
        want, _ = model(idx)
        got = transformer.forward_with_attention(model, idx, torch.arange(9).expand(3, 9), causal)
    assert torch.allclose(got, want, atol=1e-5)
    assert seen == [(0, (3, 2, 9, 8)), (1, (3, 2, 9, 8))]


def test_forward_with_attention_places_tokens_at_their_positions():
    model = transformer.TinyGPT(13, block_size=32, n_layer=1, n_head=2, n_embd=16, seed=3).eval()
    ids = torch.randint(0, 13, (1, 12), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        full, present = model(ids)
        k_past, v_past = present[0][0][:, :, :11], present[0][1][:, :, :11]

        def with_past(layer, q, k, v):
            return F.scaled_dot_product_attention(q, torch.cat([k_past, k], 2), torch.cat([v_past, v], 2))

        last = transformer.forward_with_attention(model, ids[:, 11:], torch.tensor([[11]]), with_past)
    assert torch.allclose(last[0, -1], full[0, -1], atol=1e-5)


def test_forward_with_attention_rejects_bad_shapes_and_positions():
    model = transformer.TinyGPT(13, block_size=8, n_layer=1, n_head=2, n_embd=16, seed=0)
    ids = torch.zeros(1, 3, dtype=torch.long)
    with pytest.raises(ValueError, match="both be"):
        transformer.forward_with_attention(model, ids, torch.arange(3), lambda i, q, k, v: q)
    with pytest.raises(ValueError, match="block_size"):
        transformer.forward_with_attention(model, ids, torch.tensor([[6, 7, 8]]), lambda i, q, k, v: q)


def test_graded_alone_swaps_names_and_restores_them_even_after_a_failure():
    namespace = {"allocator": "mine", "other": 1}
    with checks.graded_alone(namespace, {"allocator": "reference", "extra": 2}):
        assert namespace["allocator"] == "reference" and namespace["extra"] == 2
    assert namespace == {"allocator": "mine", "other": 1}
    with pytest.raises(AssertionError), checks.graded_alone(namespace, {"allocator": "reference"}):
        raise AssertionError("a failed check")
    assert namespace == {"allocator": "mine", "other": 1}
    with checks.graded_alone(namespace, {}):
        assert namespace == {"allocator": "mine", "other": 1}


def test_out_of_blocks_is_not_read_as_the_sandbox_memory_limit():
    # the autograder reports a MemoryError in a cell as "memory limit"; running out of KV blocks is a test failure
    assert issubclass(serving.OutOfBlocksError, RuntimeError)
    assert not issubclass(serving.OutOfBlocksError, MemoryError)
