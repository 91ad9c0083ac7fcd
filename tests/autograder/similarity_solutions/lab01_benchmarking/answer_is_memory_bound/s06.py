def is_memory_bound(ai, peak_gflops, peak_gbs):
    """True iff the bandwidth roof is strictly below the compute roof at this intensity."""
    # min(pi, I*beta) is below pi exactly when the slanted roof is the lower one
    roof = min(peak_gflops, ai * peak_gbs)
    return roof < peak_gflops
