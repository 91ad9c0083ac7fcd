def dot_bandwidth_gbs(n, seconds, itemsize=4):
    size_of_one_array = n * itemsize
    return 2 * size_of_one_array / seconds / 10.0**9
