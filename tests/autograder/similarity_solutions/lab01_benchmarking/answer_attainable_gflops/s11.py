import numpy as np


def attainable_gflops(ai, peak_gflops, peak_gbs):
    """min(peak_gflops, ai * peak_gbs)"""
    candidates = np.array([peak_gflops, ai * peak_gbs], dtype=np.float64)
    return float(candidates.min())
