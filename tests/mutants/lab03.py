"""lab03_pytorch_performance: mistakes students make (see tests/mutants/__init__.py)."""

from . import Mutant, mutant

MUTANTS = [
    mutant(
        "bytecode_unique_names",
        "counts each opcode name once (a set, not a multiset)",
        "answer_bytecode_ops",
        "return collections.Counter(instruction.opname for instruction in dis.get_instructions(fn))",
        "return collections.Counter({instruction.opname for instruction in dis.get_instructions(fn)})",
        "test_bytecode_ops",
    ),
    mutant(
        "bytecode_opcodes_not_names",
        "counts the numeric opcodes, keyed by number",
        "answer_bytecode_ops",
        "return collections.Counter(instruction.opname for instruction in dis.get_instructions(fn))",
        "return collections.Counter(instruction.opcode for instruction in dis.get_instructions(fn))",
        "test_bytecode_ops",
    ),
    mutant(
        "pairwise_loop_numpy_norm",
        "the 'loop' version calls np.linalg.norm on row differences: right values, not the baseline",
        "answer_pairwise_dist_loop",
        "            total = 0.0\n            for k in range(d):\n                diff = float(X[i, k]) - float(X[j, k])\n"
        "                total += diff * diff\n            D[i, j] = math.sqrt(total)",
        "            D[i, j] = np.linalg.norm(X[i].astype(np.float64) - X[j].astype(np.float64))",
        "test_pairwise_dist_loop",
    ),
    mutant(
        "pairwise_loop_upper_triangle",
        "fills only j > i, leaving the lower triangle zero",
        "answer_pairwise_dist_loop",
        "        for j in range(n):",
        "        for j in range(i + 1, n):",
        "test_pairwise_dist_loop",
    ),
    mutant(
        "pairwise_numpy_squared",
        "forgets the square root",
        "answer_pairwise_dist_numpy",
        'return np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))',
        'return np.einsum("ijk,ijk->ij", diff, diff)',
        "test_pairwise_dist_numpy",
    ),
    mutant(
        "pairwise_numpy_no_clip",
        "the norm expansion without clipping: tiny negative squares become NaN on the diagonal",
        "answer_pairwise_dist_numpy",
        '    diff = X64[:, None, :] - X64[None, :, :]\n    return np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))',
        "    sq = (X64 * X64).sum(axis=1)\n    return np.sqrt(sq[:, None] + sq[None, :] - 2.0 * X64 @ X64.T)",
        # NumPy's 'invalid value in sqrt' warning goes to stderr, and nbgrader scores such a cell 0
        ("test_pairwise_dist_numpy", "test_pairwise_numpy_speedup"),
    ),
    mutant(
        "pairwise_numpy_keeps_float32",
        "computes in the input's dtype: float32 in, float32 out",
        "answer_pairwise_dist_numpy",
        "X64 = np.asarray(X, dtype=np.float64)",
        "X64 = np.asarray(X)",
        "test_pairwise_dist_numpy",
    ),
    mutant(
        "pairwise_numba_serial",
        "range instead of prange: compiled, right, and serial",
        "answer_pairwise_dist_numba",
        "    for i in prange(n):",
        "    for i in range(n):",
        "test_pairwise_dist_numba",
    ),
    mutant(
        "pairwise_numba_total_outside_j",
        "starts the sum once per row: distances accumulate along j",
        "answer_pairwise_dist_numba",
        "        for j in range(n):\n            total = 0.0\n",
        "        total = 0.0\n        for j in range(n):\n",
        "test_pairwise_dist_numba",
    ),
    mutant(
        "ikj_is_ijk",
        "matmul_ikj keeps the i, j, k order (strided inner loop): right values, no gain",
        "answer_matmul_ikj",
        "    for i in range(n):\n        for k in range(p):\n            a = A[i, k]\n            for j in range(m):\n"
        "                C[i, j] += a * B[k, j]",
        "    for i in range(n):\n        for j in range(m):\n            for k in range(p):\n"
        "                C[i, j] += A[i, k] * B[k, j]",
        "test_matmul_loop_order",
    ),
    mutant(
        "ikj_uninitialised",
        "np.empty instead of np.zeros for the accumulated C",
        "answer_matmul_ikj",
        "C = np.zeros((n, m))",
        "C = np.empty((n, m))",
        "test_matmul_ikj",
    ),
    mutant(
        "ijk_swapped_bounds",
        "loops j over n and i over m: right only for square inputs",
        "answer_matmul_ijk",
        "    for i in range(n):\n        for j in range(m):",
        "    for i in range(n):\n        for j in range(n):",
        "test_matmul_ijk",
    ),
    mutant(
        "compile_time_of_compile_call",
        "times torch.compile(...) itself, which only wraps the model, as the compile cost",
        "answer_compile_speedup",
        "        compiled = torch.compile(model, mode=mode)\n        try:\n            with hl.Timer() as first:\n"
        "                compiled_out = compiled(example)",
        "        with hl.Timer() as first:\n            compiled = torch.compile(model, mode=mode)\n        try:\n"
        "            if True:\n                compiled_out = compiled(example)",
        "test_compile_speedup",
    ),
    mutant(
        "compile_speedup_inverted",
        "speedup = compiled / eager",
        "answer_compile_speedup",
        '"speedup": eager_s / compiled_s,',
        '"speedup": compiled_s / eager_s,',
        "test_compile_speedup",
    ),
    mutant(
        "compile_silent_fallback",
        "falls back without saying so",
        "answer_compile_speedup",
        "            print(f\"torch.compile with inductor failed ({reason}); falling back to backend='eager'\")\n",
        "",
        "test_compile_speedup",
    ),
    mutant(
        "gelu_calls_gelu",
        "calls F.gelu instead of writing the formula",
        "answer_fused_gelu",
        "    inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)\n    return 0.5 * x * (1.0 + torch.tanh(inner))",
        '    return F.gelu(x, approximate="tanh")',
        "test_fused_gelu",
    ),
    mutant(
        "gelu_exact_erf",
        "the exact (erf) GELU instead of the tanh approximation the text asks for",
        "answer_fused_gelu",
        "    inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)\n    return 0.5 * x * (1.0 + torch.tanh(inner))",
        "    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))",
        "test_fused_gelu",
    ),
    mutant(
        "gelu_float32_constant",
        "keeps sqrt(2/pi) in a float32 tensor: float64 inputs lose precision",
        "answer_fused_gelu",
        "inner = math.sqrt(2.0 / math.pi) * (",
        "inner = torch.tensor(math.sqrt(2.0 / math.pi)) * (",
        "test_fused_gelu",
    ),
    mutant(
        "gelu_graph_break",
        "checks the input with .item(), which breaks the graph",
        "answer_fused_gelu",
        "    inner = math.sqrt(",
        "    if float(x.abs().max().item()) < 0:\n        return x\n    inner = math.sqrt(",
        "test_fused_gelu",
    ),
]
MUTANTS += [
    mutant(
        "executed_static_count",
        "returns the static count of the bytecode, not what ran",
        "answer_executed_ops",
        "    previous = sys.gettrace()\n",
        "    return collections.Counter(names.values())\n    previous = sys.gettrace()\n",
        "test_executed_ops",
    ),
    Mutant(
        "executed_counts_callees",
        "traces every new frame, so the instructions of the functions fn calls are counted too",
        (
            (
                "answer_executed_ops",
                "counts[names[frame.f_lasti]] += 1",
                "counts[dis.opname[frame.f_code.co_code[frame.f_lasti]]] += 1",
            ),
            ("answer_executed_ops", 'if event == "call" and frame.f_code is code:', 'if event == "call":'),
        ),
        frozenset({"test_executed_ops"}),
    ),
    mutant(
        "executed_no_restore",
        "switches tracing off afterwards instead of restoring the previous trace function",
        "answer_executed_ops",
        "        sys.settrace(previous)",
        "        sys.settrace(None)",
        "test_executed_ops",
    ),
]
MUTANTS += [
    mutant(
        "gelu_backward_forgets_chain_rule",
        "returns the derivative without multiplying by grad_output",
        "answer_gelu_backward",
        "return grad_output * derivative",
        "return derivative",
        "test_gelu_backward",
    ),
    mutant(
        "gelu_backward_drops_factor_three",
        "differentiates x^3 as x^2",
        "answer_gelu_backward",
        "(1.0 + 3.0 * 0.044715 * x * x)",
        "(1.0 + 0.044715 * x * x)",
        "test_gelu_backward",
    ),
    Mutant(
        "gelu_backward_saves_tanh",
        "saves x and the forward's tanh for backward instead of recomputing it",
        (
            (
                "answer_gelu_backward",
                "        ctx.save_for_backward(x)\n        return fused_gelu(x)",
                "        t = torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x))\n"
                "        ctx.save_for_backward(x, t)\n        return 0.5 * x * (1.0 + t)",
            ),
            (
                "answer_gelu_backward",
                "        (x,) = ctx.saved_tensors\n        c = math.sqrt(2.0 / math.pi)\n"
                "        t = torch.tanh(c * (x + 0.044715 * x * x * x))\n",
                "        x, t = ctx.saved_tensors\n        c = math.sqrt(2.0 / math.pi)\n",
            ),
        ),
        frozenset({"test_gelu_backward"}),
    ),
]
