@njit
def _mul64(x, y):
    # widen before multiplying so the product is exact in float64
    return np.float64(x) * np.float64(y)


@njit
def dot_numba(a, b):
    total = 0.0
    for i in range(a.shape[0]):
        total += _mul64(a[i], b[i])
    return total
