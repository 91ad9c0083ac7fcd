def dot_bandwidth_gbs(n, seconds, itemsize=4):
    """Memory bandwidth in GB/s (10**9 bytes per second) for reading a and b once."""
    bytes_total = itemsize * n * 2
    result = bytes_total / (seconds * 1e9)
    return result
