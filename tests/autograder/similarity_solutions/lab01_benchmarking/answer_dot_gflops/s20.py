def dot_gflops(n, seconds):
    # n multiply-add pairs, each pair counted as two FLOP
    pairs = n
    return pairs * 2 / seconds / 1e9
