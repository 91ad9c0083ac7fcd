def dot_bandwidth_gbs(n, seconds, itemsize=4):
    rate_bytes = (2 * n * itemsize) / seconds  # bytes per second
    return float(rate_bytes / 1e9)
