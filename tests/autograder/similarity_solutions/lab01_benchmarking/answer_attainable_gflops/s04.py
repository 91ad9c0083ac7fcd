import numpy as np


def attainable_gflops(ai, peak_gflops, peak_gbs):
    # the lower of the two roofs wins
    return float(np.minimum(peak_gflops, ai * peak_gbs))
