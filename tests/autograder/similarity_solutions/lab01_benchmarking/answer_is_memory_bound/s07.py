def is_memory_bound(ai, peak_gflops, peak_gbs):
    bw_perf = ai * peak_gbs
    if bw_perf == peak_gflops:
        return False  # on the ridge -> compute-bound by convention
    return bw_perf < peak_gflops
