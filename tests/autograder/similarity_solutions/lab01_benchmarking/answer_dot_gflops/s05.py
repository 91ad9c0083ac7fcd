def dot_gflops(n, seconds):
    gflop = 2 * n / 1e9  # work in GFLOP
    return gflop / seconds
