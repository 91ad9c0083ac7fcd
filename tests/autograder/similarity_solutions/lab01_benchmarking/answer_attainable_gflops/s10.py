def attainable_gflops(ai: float, peak_gflops: float, peak_gbs: float) -> float:
    """Upper bound on performance (GFLOP/s) for a kernel with intensity `ai`."""
    from_bandwidth = peak_gbs * ai
    return min(from_bandwidth, peak_gflops)
