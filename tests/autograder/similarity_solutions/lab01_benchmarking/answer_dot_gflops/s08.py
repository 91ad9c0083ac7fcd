def dot_gflops(n, seconds):
    # one multiply and one add per element
    flop_count = n + n
    return flop_count / (1e9 * seconds)
