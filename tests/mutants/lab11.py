"""lab11_custom_kernels: mistakes students make (see tests/mutants/__init__.py).

The Triton kernels run in Triton's CPU interpreter; their tests put every input and output between guard
bands, so a missing mask shows as NaN read from a band or a band overwritten. The C++ answers are compiled by
the load cells; a mistake that does not compile fails every test that uses it.
"""

from . import Mutant, mutant

ADD = "answer_triton_add"
SOFTMAX = "answer_triton_softmax"
MATMUL = "answer_triton_matmul"
ATTN = "answer_triton_attention"
GELU = "answer_fused_bias_gelu"
OP = "answer_custom_op"
BLOCKED = "answer_matmul_blocked"

MUTANTS = [
    mutant(
        "add_no_mask",
        "loads and stores the whole last block: no mask",
        ADD,
        "    x = tl.load(x_ptr + offsets, mask=mask)\n    y = tl.load(y_ptr + offsets, mask=mask)\n"
        "    tl.store(out_ptr + offsets, x + y, mask=mask)",
        "    x = tl.load(x_ptr + offsets)\n    y = tl.load(y_ptr + offsets)\n    tl.store(out_ptr + offsets, x + y)",
        "test_triton_add",
    ),
    mutant(
        "add_grid_floor",
        "a grid of n // BLOCK_SIZE programs: the last partial block is never computed",
        ADD,
        "add_kernel[(triton.cdiv(n, block),)]",
        "add_kernel[(max(1, n // block),)]",
        "test_triton_add",
    ),
    mutant(
        "softmax_no_max",
        "exponentiates without subtracting the row's maximum: overflows for large inputs",
        SOFTMAX,
        "    x = x - tl.max(x, axis=0)\n",
        "",
        "test_triton_softmax",
    ),
    mutant(
        "softmax_masked_as_zero",
        "loads the masked columns as 0 instead of -inf: they count in the sum",
        SOFTMAX,
        'mask=mask, other=-float("inf"))',
        "mask=mask, other=0.0)",
        "test_triton_softmax",
    ),
    mutant(
        "softmax_row_stride_is_n_cols",
        "steps from row to row by n_cols instead of the row stride: wrong for slices",
        SOFTMAX,
        "x_ptr + row * x_row_stride + cols",
        "x_ptr + row * n_cols + cols",
        "test_triton_softmax",
    ),
    mutant(
        "matmul_no_k_mask",
        "masks the rows and columns but not K: reads past the end of a row when K is not a multiple of BLOCK_K",
        MATMUL,
        "mask=(rows[:, None] < M) & (k[None, :] < K), other=0.0)",
        "mask=rows[:, None] < M, other=0.0)",
        "test_triton_matmul",
    ),
    mutant(
        "matmul_axes_swapped",
        "takes the tile's row from program_id(1) and its column from program_id(0)",
        MATMUL,
        "    pid_m = tl.program_id(0)\n    pid_n = tl.program_id(1)\n",
        "    pid_m = tl.program_id(1)\n    pid_n = tl.program_id(0)\n",
        "test_triton_matmul",
    ),
    mutant(
        "matmul_accumulator_reset",
        "starts the accumulator inside the K loop: only the last block of K counts",
        MATMUL,
        "        k = k0 + ks\n",
        "        k = k0 + ks\n        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)\n",
        "test_triton_matmul",
    ),
    mutant(
        "attn_no_rescale",
        "forgets to rescale the running sum and output by exp(m - m') when the maximum grows",
        ATTN,
        "        row_sum = row_sum * alpha + tl.sum(p, axis=1)\n        o = o * alpha[:, None] + tl.dot(p, v)\n",
        "        row_sum = row_sum + tl.sum(p, axis=1)\n        o = o + tl.dot(p, v)\n",
        ("test_triton_attention", "test_triton_attention_causal"),
    ),
    mutant(
        "attn_no_scale",
        "forgets the 1/sqrt(d) scale of the scores",
        ATTN,
        "        s = tl.dot(q, tl.trans(k)) * scale\n",
        "        s = tl.dot(q, tl.trans(k))\n",
        ("test_triton_attention", "test_triton_attention_causal"),
    ),
    mutant(
        "attn_causal_strict",
        "a causal mask with < instead of <=: a query does not see its own key",
        ATTN,
        "(cols[None, :] <= rows[:, None])",
        "(cols[None, :] < rows[:, None])",
        "test_triton_attention_causal",
    ),
    mutant(
        "attn_padded_keys_kept",
        "keeps the scores of keys beyond seq_len in the last block (masked loads give them 0, not -inf); the "
        "causal mask hides them anyway, so only the non-causal test can see it",
        ATTN,
        "        keep = cols[None, :] < seq_len\n",
        "        keep = cols[None, :] >= 0\n",
        "test_triton_attention",
    ),
    mutant(
        "gelu_tanh_approximation",
        "uses GELU's tanh approximation instead of erf",
        GELU,
        "orow[c] = 0.5f * v * (1.0f + std::erf(v * 0.70710678118654752f));",
        "orow[c] = 0.5f * v * (1.0f + std::tanh(0.7978845608f * (v + 0.044715f * v * v * v)));",
        "test_fused_bias_gelu",
    ),
    mutant(
        "gelu_ignores_strides",
        "reads x through its data pointer without contiguous(): wrong for transposed views",
        GELU,
        "    torch::Tensor xc = x.contiguous();\n",
        "    torch::Tensor xc = x;\n",
        "test_fused_bias_gelu",
    ),
    mutant(
        "gelu_in_place",
        "writes the result into x and returns it",
        GELU,
        "    torch::Tensor out = torch::empty_like(xc);\n",
        "    torch::Tensor out = xc;\n",
        "test_fused_bias_gelu",
    ),
    mutant(
        "gelu_bias_by_row",
        "adds the bias element of the row instead of the column",
        GELU,
        "const float v = xr[c] + bp[c];",
        "const float v = xr[c] + bp[row % cols];",
        "test_fused_bias_gelu",
    ),
    mutant(
        "op_without_fake",
        "registers the operator without a fake implementation: torch.compile cannot trace it",
        OP,
        "@fused_bias_gelu_op.register_fake\n",
        "",
        "test_custom_op",
    ),
    mutant(
        "op_fake_returns_input",
        "the fake returns its input instead of a new tensor",
        OP,
        "    return torch.empty_like(x, memory_format=torch.contiguous_format)",
        "    return x",
        "test_custom_op",
    ),
    Mutant(
        "blocked_racy_k_loop",
        "parallelises the loop over blocks of K: threads add into the same elements of C (a race, caught when "
        "the threads really run at once: on an idle machine with 2 cores, about 9 runs in 10)",
        (
            (
                BLOCKED,
                "    #pragma omp parallel for schedule(static)\n    for (int i0 = 0; i0 < n; i0 += block) {",
                "    for (int i0 = 0; i0 < n; i0 += block) {",
            ),
            (
                BLOCKED,
                "        for (int k0 = 0; k0 < n; k0 += block) {",
                "        #pragma omp parallel for\n        for (int k0 = 0; k0 < n; k0 += block) {",
            ),
        ),
        frozenset({"test_matmul_blocked"}),
    ),
    mutant(
        "blocked_c_not_zeroed",
        "accumulates into C without setting it to zero first",
        BLOCKED,
        "        for (int i = i0; i < i1; ++i)\n            for (int j = 0; j < n; ++j) C[i * n + j] = 0.0f;\n",
        "",
        "test_matmul_blocked",
    ),
    mutant(
        "blocked_runs_past_n",
        "ends every block at i0 + block even when that is past n",
        BLOCKED,
        "        const int i1 = i0 + block < n ? i0 + block : n;",
        "        const int i1 = i0 + block;",
        "test_matmul_blocked",
    ),
]
