def attainable_gflops(ai, peak_gflops, peak_gbs):
    """Most GFLOP/s a kernel of arithmetic intensity ai can reach on this machine."""
    # units: (FLOP/byte) * (GB/s) -> GFLOP/s, so it is directly comparable with peak_gflops
    gflops_from_memory = ai * peak_gbs
    best = min(peak_gflops, gflops_from_memory)
    return best
