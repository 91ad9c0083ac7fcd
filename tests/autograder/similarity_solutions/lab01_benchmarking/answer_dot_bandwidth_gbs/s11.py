def dot_bandwidth_gbs(n, seconds, itemsize=4):
    """Achieved GB/s; itemsize is 4 for float32, 8 for float64."""
    total_bytes = 2 * n * itemsize
    gb = total_bytes / 1_000_000_000
    return gb / seconds
