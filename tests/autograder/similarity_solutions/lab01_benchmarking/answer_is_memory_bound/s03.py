def is_memory_bound(ai, peak_gflops, peak_gbs):
    """Is the kernel left of the ridge point?"""
    memory_roof = ai * peak_gbs
    if memory_roof < peak_gflops:
        return True
    return False
