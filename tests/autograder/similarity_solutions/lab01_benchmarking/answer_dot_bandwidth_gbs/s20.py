def dot_bandwidth_gbs(n, seconds, itemsize=4):
    BYTES_PER_GB = 1e9
    per_second = 2 * n * itemsize / seconds
    return per_second / BYTES_PER_GB
