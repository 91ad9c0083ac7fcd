def attainable_gflops(ai, peak_gflops, peak_gbs):
    """P(I) = min(pi, I * beta) in GFLOP/s."""
    return peak_gflops if ai * peak_gbs >= peak_gflops else ai * peak_gbs
