def dot_gflops(n, seconds):
    return float(n) * 2.0 / float(seconds) / 1.0e9
