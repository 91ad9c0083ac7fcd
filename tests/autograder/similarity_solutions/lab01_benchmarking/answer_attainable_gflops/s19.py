def attainable_gflops(ai, peak_gflops, peak_gbs):
    """Roofline bound."""
    memory_bound_perf = ai * peak_gbs
    is_memory_limited = memory_bound_perf < peak_gflops
    return memory_bound_perf if is_memory_limited else peak_gflops
