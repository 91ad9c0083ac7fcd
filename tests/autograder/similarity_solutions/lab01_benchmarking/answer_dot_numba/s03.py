@njit
def dot_numba(a, b):
    n = a.size
    acc = 0.0
    i = 0
    while i < n:
        acc += np.float64(a[i]) * np.float64(b[i])
        i += 1
    return acc
