def dot_gflops(n, seconds):
    flops = 2 * n  # n multiplies + n adds
    flops_per_second = flops / seconds
    return flops_per_second / 1e9
