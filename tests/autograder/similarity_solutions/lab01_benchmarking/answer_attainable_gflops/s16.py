def attainable_gflops(ai, peak_gflops, peak_gbs):
    """Roofline bound in GFLOP/s: min(peak_gflops, ai * peak_gbs) (Lab 1, Part 5)."""
    slanted = ai * peak_gbs
    flat = peak_gflops
    return slanted if slanted < flat else flat
