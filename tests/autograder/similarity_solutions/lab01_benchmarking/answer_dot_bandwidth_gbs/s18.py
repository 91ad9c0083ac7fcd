def dot_bandwidth_gbs(n, seconds, itemsize=4):
    # GB/s = (bytes / 1e9) / seconds
    return (n * itemsize * 2 / 1e9) / seconds
