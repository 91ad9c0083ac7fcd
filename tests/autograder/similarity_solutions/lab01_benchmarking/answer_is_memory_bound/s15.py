def is_memory_bound(ai: float, peak_gflops: float, peak_gbs: float) -> bool:
    """Is ai * peak_gbs < peak_gflops?"""
    if ai * peak_gbs >= peak_gflops:   # on or right of the ridge
        return False
    else:
        return True
