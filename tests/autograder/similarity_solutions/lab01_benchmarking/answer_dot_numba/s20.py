from numba import njit
import numpy as np


@njit
def dot_numba(a, b):
    # compiled version of the baseline loop, float64 running sum
    acc = 0.0
    for j in range(len(b)):
        acc = acc + np.float64(a[j]) * np.float64(b[j])
    return float(acc)
