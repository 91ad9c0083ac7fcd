def is_memory_bound(ai, peak_gflops, peak_gbs):
    memory_limited_gflops = ai * peak_gbs
    compute_limited_gflops = peak_gflops
    return compute_limited_gflops > memory_limited_gflops  # strictly: ties are compute-bound
