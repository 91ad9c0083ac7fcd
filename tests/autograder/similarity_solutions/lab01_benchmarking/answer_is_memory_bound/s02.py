def is_memory_bound(ai, peak_gflops, peak_gbs):
    # strict <: exactly on the ridge counts as compute-bound
    return bool(ai * peak_gbs < peak_gflops)
