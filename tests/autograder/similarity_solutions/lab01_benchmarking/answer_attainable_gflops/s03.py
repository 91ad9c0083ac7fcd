def attainable_gflops(ai, peak_gflops, peak_gbs):
    """Attainable performance under the roofline model."""
    bandwidth_limit = ai * peak_gbs
    compute_limit = peak_gflops
    return float(min(compute_limit, bandwidth_limit))
