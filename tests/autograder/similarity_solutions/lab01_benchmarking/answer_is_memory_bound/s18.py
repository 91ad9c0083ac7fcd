def is_memory_bound(ai, peak_gflops, peak_gbs):
    """Memory-bound (True) or compute-bound (False)?"""
    # I * beta in GFLOP/s, compared with pi
    compute_roof = peak_gflops
    slope_roof = peak_gbs * ai
    memory_bound = False
    if slope_roof < compute_roof:
        memory_bound = True
    return memory_bound
