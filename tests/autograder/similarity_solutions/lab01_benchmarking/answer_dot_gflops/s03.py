def dot_gflops(n, seconds):
    # 2n FLOP, expressed in units of 1e9 FLOP per second
    return (2.0 * n) / (seconds * 1e9)
