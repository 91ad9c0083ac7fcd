def is_memory_bound(ai, peak_gflops, peak_gbs):
    # YOUR CODE HERE
    kind = "memory" if ai * peak_gbs < peak_gflops else "compute"
    return kind == "memory"
