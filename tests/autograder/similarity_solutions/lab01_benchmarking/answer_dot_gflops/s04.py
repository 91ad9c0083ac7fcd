GIGA = 1e9


def dot_gflops(n, seconds):
    """GFLOP/s = 2n / (t * 1e9)."""
    return float(2 * n) / seconds / GIGA
