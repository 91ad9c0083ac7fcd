def is_memory_bound(ai, peak_gflops, peak_gbs):
    """True iff a kernel of intensity ``ai`` sits left of the ridge."""
    return True if ai * peak_gbs < peak_gflops else False
