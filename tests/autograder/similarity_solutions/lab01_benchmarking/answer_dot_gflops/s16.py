def dot_gflops(n, seconds):
    """Example: dot_gflops(1_000_000, 1e-3) == 2.0"""
    nanoseconds = seconds * 1e9
    # FLOP per nanosecond is the same number as GFLOP/s
    return 2 * n / nanoseconds
