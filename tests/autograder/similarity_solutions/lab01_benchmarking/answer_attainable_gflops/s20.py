def attainable_gflops(ai, peak_gflops, peak_gbs):
    pi, beta = peak_gflops, peak_gbs
    return min(pi, ai * beta)  # roofline: min(pi, I * beta)
