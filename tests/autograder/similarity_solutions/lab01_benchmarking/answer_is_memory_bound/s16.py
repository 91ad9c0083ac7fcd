import numpy as np


def is_memory_bound(ai, peak_gflops, peak_gbs):
    """Sign of the gap between the compute roof and the memory roof."""
    gap = peak_gflops - ai * peak_gbs
    return bool(np.sign(gap) > 0)
