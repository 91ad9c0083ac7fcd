def dot_gflops(n, seconds):
    work = 2.0 * n
    return work * 1e-9 / seconds
