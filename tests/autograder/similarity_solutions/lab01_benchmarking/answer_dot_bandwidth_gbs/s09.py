def dot_bandwidth_gbs(n, seconds, itemsize=4):
    # read a[i] and b[i] for every i
    bytes_moved = n * itemsize + n * itemsize
    return bytes_moved / (1e9 * seconds)
