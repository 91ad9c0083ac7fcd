def attainable_gflops(ai, peak_gflops, peak_gbs):
    if peak_gflops < ai * peak_gbs:
        bound = peak_gflops
    else:
        bound = ai * peak_gbs
    return bound
