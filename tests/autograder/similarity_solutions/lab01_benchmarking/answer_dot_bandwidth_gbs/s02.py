def dot_bandwidth_gbs(n, seconds, itemsize=4):
    nbytes = 2 * n * itemsize  # both vectors are read once
    return nbytes / seconds / 1e9
