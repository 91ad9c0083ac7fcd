def dot_gflops(n, seconds):
    """Achieved GFLOP/s of a length-n dot product."""
    ops = 2 * n
    return ops / seconds / 1_000_000_000
