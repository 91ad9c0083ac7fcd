def attainable_gflops(ai, peak_gflops, peak_gbs):
    roofs = [peak_gflops, ai * peak_gbs]
    roofs.sort()
    return roofs[0]
