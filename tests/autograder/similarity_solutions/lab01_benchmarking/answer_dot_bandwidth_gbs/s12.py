def _bytes_read(n, itemsize):
    """Both input vectors, each n elements of `itemsize` bytes, are read once."""
    return 2 * n * itemsize


def dot_bandwidth_gbs(n, seconds, itemsize=4):
    return _bytes_read(n, itemsize) / seconds / 1e9
