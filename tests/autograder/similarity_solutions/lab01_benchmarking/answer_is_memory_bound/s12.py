def is_memory_bound(ai, peak_gflops, peak_gbs):
    """
    Decide which roof limits a kernel.

    ai * peak_gbs is what the memory system allows (GFLOP/s); if that is lower than the
    compute peak the kernel is memory-bound. Ties (the ridge point) are compute-bound.
    """
    left_of_ridge = ai * peak_gbs < peak_gflops
    return left_of_ridge
