def is_memory_bound(ai, peak_gflops, peak_gbs):
    """Left of the ridge -> memory bound."""
    headroom = peak_gflops - ai * peak_gbs   # > 0 means memory can't keep the FPUs busy
    return headroom > 0
