def attainable_gflops(ai, peak_gflops, peak_gbs):
    """Roofline bound in GFLOP/s: min(peak_gflops, ai * peak_gbs) (Lab 1, Part 5).

    ai: arithmetic intensity (FLOP/byte); peak_gflops: peak compute (GFLOP/s);
    peak_gbs: peak memory bandwidth (GB/s).
    """
    return min(peak_gflops, ai * peak_gbs)
