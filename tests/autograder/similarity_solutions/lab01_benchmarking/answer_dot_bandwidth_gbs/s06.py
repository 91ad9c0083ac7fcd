def dot_bandwidth_gbs(n, seconds, itemsize=4):
    bytes_per_vector = n * itemsize
    total_bytes = bytes_per_vector * 2  # a and b
    return total_bytes / seconds * 1e-9
