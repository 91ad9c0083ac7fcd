def is_memory_bound(ai, peak_gflops, peak_gbs):
    return peak_gflops > peak_gbs * ai
