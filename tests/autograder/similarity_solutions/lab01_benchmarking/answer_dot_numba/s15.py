@njit
def dot_numba(a, b):
    acc = 0.0
    for k in range(0, a.size):
        acc = acc + np.float64(a[k]) * b[k]
    return acc
