def attainable_gflops(ai, peak_gflops, peak_gbs):
    # YOUR CODE HERE
    return min((peak_gflops, ai * peak_gbs))
