def dot_bandwidth_gbs(n, seconds, itemsize=4):
    elements_read = 2 * n
    return elements_read * itemsize * 1e-9 / seconds
