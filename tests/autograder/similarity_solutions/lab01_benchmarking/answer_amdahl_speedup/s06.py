import numpy as np


def amdahl_speedup(parallel_fraction, s):
    # numpy float64 division gives inf instead of raising when the time left is 0 (p = 1, s = inf)
    with np.errstate(divide="ignore"):
        t_new = np.float64(1.0 - parallel_fraction) + np.float64(parallel_fraction) / np.float64(s)
        return float(np.float64(1.0) / t_new)
