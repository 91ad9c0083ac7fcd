def is_memory_bound(ai, peak_gflops, peak_gbs):
    """True iff a kernel of intensity ``ai`` sits left of the ridge: ai * peak_gbs < peak_gflops (Lab 1, Part 5).

    Exactly at the ridge point the kernel counts as compute-bound (returns False).
    """
    # the roof actually reached is the lower one; memory-bound when it is the slanted one
    attainable = min(peak_gflops, ai * peak_gbs)
    return attainable != peak_gflops
