def dot_bandwidth_gbs(n, seconds, itemsize=4):
    """Achieved memory bandwidth in GB/s (1e9 bytes/s) of a length-n dot product (Lab 1, Part 4).

    The kernel reads both inputs once: 2 * n * itemsize bytes (itemsize 4 for float32).
    Example: dot_bandwidth_gbs(1_000_000, 1e-3) == 8.0
    """
    return 2 * n * itemsize / seconds / 1e9
