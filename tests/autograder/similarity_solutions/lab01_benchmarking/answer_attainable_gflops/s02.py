def attainable_gflops(ai, peak_gflops, peak_gbs):
    memory_roof = ai * peak_gbs  # GFLOP/s the memory system can feed
    if memory_roof < peak_gflops:
        return memory_roof
    return peak_gflops
