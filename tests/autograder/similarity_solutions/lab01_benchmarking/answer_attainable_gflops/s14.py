def attainable_gflops(ai, peak_gflops, peak_gbs):
    """Roofline bound in GFLOP/s (ai in FLOP/byte, peaks in GFLOP/s and GB/s)."""
    ridge = peak_gflops / peak_gbs        # FLOP/byte where the two roofs meet
    if ai >= ridge:
        return peak_gflops
    return ai * peak_gbs
