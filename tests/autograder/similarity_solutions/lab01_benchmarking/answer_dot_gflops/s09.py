def dot_gflops(n, seconds):
    """2n FLOP in `seconds` seconds, reported in GFLOP/s (1 GFLOP/s = 1e9 FLOP/s)."""
    rate = 2 * n / seconds
    return rate * 1e-9
