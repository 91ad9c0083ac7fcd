@njit
def dot_numba(a, b):
    remaining = a.shape[0]
    i = 0
    total = 0.0
    while remaining > 0:
        total += np.float64(a[i]) * b[i]
        i += 1
        remaining -= 1
    return total
