def dot_gflops(n, seconds):
    giga = 10.0 ** 9
    return (n * 2) / seconds / giga
