import operator


def is_memory_bound(ai, peak_gflops, peak_gbs):
    achievable_from_memory = operator.mul(ai, peak_gbs)
    return operator.lt(achievable_from_memory, peak_gflops)
