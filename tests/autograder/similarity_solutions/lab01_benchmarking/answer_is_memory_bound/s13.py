def _bandwidth_ceiling(ai, peak_gbs):
    return ai * peak_gbs


def is_memory_bound(ai, peak_gflops, peak_gbs):
    """Memory-bound iff the bandwidth ceiling is below peak compute."""
    ceiling = _bandwidth_ceiling(ai, peak_gbs)
    return ceiling < peak_gflops
