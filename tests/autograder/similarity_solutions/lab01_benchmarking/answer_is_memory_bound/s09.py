import numpy as np


def is_memory_bound(ai, peak_gflops, peak_gbs):
    # convert the numpy bool into a plain python bool
    return bool(np.less(ai * peak_gbs, peak_gflops))
