def dot_bandwidth_gbs(n, seconds, itemsize=4):
    # bytes moved / time, in units of 1e9 bytes per second (not GiB)
    return (2.0 * n * itemsize) / (seconds * 1e9)
