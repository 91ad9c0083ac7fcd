def dot_gflops(n, seconds):
    """Achieved rate in GFLOP/s for a dot product of length n (2n FLOP)."""
    return float(2 * n / (seconds * 10**9))
