@njit
def dot_numba(a, b):
    n = min(len(a), len(b))
    s = 0.0
    for idx in range(n):
        s += np.float64(a[idx]) * b[idx]
    return s
