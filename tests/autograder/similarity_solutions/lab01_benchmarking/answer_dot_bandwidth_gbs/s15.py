def dot_bandwidth_gbs(n, seconds, itemsize=4):
    """Example: dot_bandwidth_gbs(1_000_000, 1e-3) == 8.0"""
    ns = seconds * 1e9
    # bytes per nanosecond equals GB/s
    return 2 * n * itemsize / ns
