from functools import reduce


def attainable_gflops(ai, peak_gflops, peak_gbs):
    ceilings = (peak_gflops, ai * peak_gbs)
    return reduce(lambda x, y: y if y < x else x, ceilings)
