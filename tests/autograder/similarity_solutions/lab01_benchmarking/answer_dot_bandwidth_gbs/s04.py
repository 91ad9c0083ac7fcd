GB = 1e9  # this course's GB: 10**9 bytes


def dot_bandwidth_gbs(n, seconds, itemsize=4):
    bytes_read = 2 * n * itemsize
    return float(bytes_read) / seconds / GB
