def dot_bandwidth_gbs(n, seconds, itemsize=4):
    """GB/s = 2 n s / (t * 1e9)."""
    gigabytes = 2 * n * itemsize / 1e9
    return gigabytes / seconds
