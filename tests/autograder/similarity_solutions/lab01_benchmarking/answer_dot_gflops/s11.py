def dot_gflops(n, seconds):
    flops = 2 * n
    gflops = flops / 1e9
    # divide the amount of work by the time it took
    return gflops / seconds
