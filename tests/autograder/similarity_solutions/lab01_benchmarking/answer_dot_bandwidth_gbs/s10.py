def dot_bandwidth_gbs(n, seconds, itemsize=4):
    return 2e-9 * n * itemsize / seconds
