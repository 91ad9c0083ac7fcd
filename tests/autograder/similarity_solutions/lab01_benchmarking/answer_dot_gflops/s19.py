def dot_gflops(n, seconds):
    """Convert a dot-product time into GFLOP/s (2n floating-point operations)."""
    total_flops = 2 * n
    result = total_flops / (seconds * 1e9)
    return result
