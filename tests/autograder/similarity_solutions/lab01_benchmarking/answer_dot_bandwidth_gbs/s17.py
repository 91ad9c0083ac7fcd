def dot_bandwidth_gbs(n, seconds, itemsize=4):
    q = 2.0 * n * itemsize  # Q from the text, in bytes
    return q / seconds / 1.0e9
