def dot_bandwidth_gbs(n, seconds, itemsize=4):
    return float(2 * n * itemsize / (seconds * 10**9))
