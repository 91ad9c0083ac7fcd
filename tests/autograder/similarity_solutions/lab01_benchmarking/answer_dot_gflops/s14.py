def dot_gflops(n, seconds):
    return 2e-9 * n / seconds
