"""lab07_transformers: mistakes students make (see tests/mutants/__init__.py)."""

from . import mutant

MUTANTS = [
    mutant(
        "attention_scale_by_value_dim",
        "divides the scores by sqrt(d_v) instead of sqrt(d)",
        "answer_attention",
        "scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])",
        "scores = q @ k.transpose(-2, -1) / math.sqrt(v.shape[-1])",
        "test_attention",
    ),
    mutant(
        "attention_mask_hides_diagonal",
        "tril(-1): a query cannot see its own key",
        "answer_attention",
        "dtype=torch.bool, device=q.device).tril()",
        "dtype=torch.bool, device=q.device).tril(-1)",
        "test_attention",
    ),
    mutant(
        "attention_softmax_over_queries",
        "softmax over the query dimension",
        "answer_attention",
        "return torch.softmax(scores, dim=-1) @ v",
        "return torch.softmax(scores, dim=-2) @ v",
        "test_attention",
    ),
    mutant(
        "tiled_no_rescale",
        "never rescales the running sum and output when the row maximum grows",
        "answer_tiled_attention",
        "            rescale = torch.exp(row_max - new_max)\n",
        "            rescale = torch.ones_like(new_max)\n",
        ("test_tiled_attention", "test_tiled_attention_memory"),
    ),
    mutant(
        "tiled_lse_without_max",
        "returns log(row_sum) as the log-sum-exp, forgetting the running maximum",
        "answer_tiled_attention",
        "lse[..., q_start:q_end] = row_max + torch.log(row_sum)",
        "lse[..., q_start:q_end] = torch.log(row_sum)",
        ("test_tiled_attention", "test_tiled_attention_memory"),
    ),
    mutant(
        "tiled_full_scores",
        "computes the whole score row block at once (block_k ignored): right values, L x S memory",
        "answer_tiled_attention",
        "        for k_start in range(0, k_stop, block_k):\n            k_end = min(k_start + block_k, seq_k)",
        "        for k_start in range(0, 1):\n            k_end = seq_k",
        "test_tiled_attention_memory",
    ),
    mutant(
        "tiled_causal_mask_diagonal",
        "masks j >= i inside the tiles: the diagonal disappears",
        "answer_tiled_attention",
        'scores = scores.masked_fill(cols > rows, float("-inf"))',
        'scores = scores.masked_fill(cols >= rows, float("-inf"))',
        ("test_tiled_attention", "test_tiled_attention_memory"),
    ),
    mutant(
        "kv_cache_keys_only",
        "counts the keys but not the values",
        "answer_kv_cache_bytes",
        "return int(2 * n_layers *",
        "return int(n_layers *",
        "test_kv_cache_bytes",
    ),
    mutant(
        "generate_cache_refeeds_everything",
        "passes the whole sequence again at every step, with the cache as well",
        "answer_generate",
        "logits, past_kv = model(next_id, past_kv=past_kv)",
        "logits, _ = model(ids)",
        ("test_generate", "test_generate_speed"),
    ),
    mutant(
        "generate_ignores_use_cache",
        "always decodes with the cache, so there is no uncached baseline",
        "answer_generate",
        "        if not use_cache:\n",
        "        if False:\n",
        ("test_generate", "test_generate_speed"),
    ),
    mutant(
        "generate_samples_from_second_to_last",
        "reads the logits of position -2",
        "answer_generate",
        "            next_id = logits[:, -1, :].argmax(dim=-1, keepdim=True)\n            ids = torch.cat([ids, next_id], dim=1)\n            if step",
        "            next_id = logits[:, -2 if logits.shape[1] > 1 else -1, :].argmax(dim=-1, keepdim=True)\n"
        "            ids = torch.cat([ids, next_id], dim=1)\n            if step",
        ("test_generate", "test_generate_speed"),
    ),  # the speed test also compares the two modes' tokens
    mutant(
        "lora_scale_alpha",
        "scales the update by alpha instead of alpha / r",
        "answer_lora_linear",
        "self.scale = alpha / r",
        "self.scale = alpha",
        "test_lora_linear",
    ),
    mutant(
        "lora_inits_swapped",
        "A zeros and B random: the update starts at zero but B gets no gradient",
        "answer_lora_linear",
        "        self.A = nn.Parameter(torch.empty(r, base.in_features, **like))\n"
        "        nn.init.kaiming_uniform_(self.A, a=math.sqrt(5))\n"
        "        self.B = nn.Parameter(torch.zeros(base.out_features, r, **like))",
        "        self.A = nn.Parameter(torch.zeros(r, base.in_features, **like))\n"
        "        self.B = nn.Parameter(torch.empty(base.out_features, r, **like))\n"
        "        nn.init.kaiming_uniform_(self.B, a=math.sqrt(5))",
        "test_lora_linear",
    ),
    mutant(
        "lora_base_trainable",
        "forgets to freeze the base layer",
        "answer_lora_linear",
        "        for p in self.base.parameters():\n            p.requires_grad_(False)\n",
        "",
        "test_lora_linear",
    ),
    mutant(
        "lora_merge_without_scale",
        "merge() adds B A without the alpha / r factor",
        "answer_lora_linear",
        "self.base.weight += self.scale * (self.B @ self.A)",
        "self.base.weight += self.B @ self.A",
        "test_lora_linear",
    ),
    mutant(
        "trainable_counts_frozen",
        "counts every parameter",
        "answer_trainable_parameters",
        "for p in model.parameters() if p.requires_grad",
        "for p in model.parameters()",
        "test_trainable_parameters",
    ),
]
