def is_memory_bound(ai, peak_gflops, peak_gbs):
    """Memory-bound test for the roofline model (at the ridge: compute-bound)."""
    return not (ai * peak_gbs >= peak_gflops)
