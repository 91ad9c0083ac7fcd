@njit
def dot_numba(a, b):
    total = 0.0
    for i in range(a.shape[0]):
        # a float32 times a float64 is computed in float64
        total += a[i] * np.float64(b[i])
    return total
