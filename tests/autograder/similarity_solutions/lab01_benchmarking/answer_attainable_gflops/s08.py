def attainable_gflops(ai, peak_gflops, peak_gbs):
    """Roofline bound in GFLOP/s.

    Left of the ridge (ai < peak_gflops / peak_gbs) the memory roof ai * peak_gbs is lower,
    right of it the flat compute roof peak_gflops.
    """
    mem = ai * peak_gbs
    if mem >= peak_gflops:
        # compute-bound: the flat part of the roof
        return float(peak_gflops)
    # memory-bound: the slanted part
    return mem
