def dot_bandwidth_gbs(n, seconds, itemsize=4):
    """Bandwidth of a dot product: it reads a and b once, writes (almost) nothing."""
    num_inputs = 2
    traffic = num_inputs * n * itemsize
    bandwidth = traffic / seconds
    return bandwidth / 1e9
