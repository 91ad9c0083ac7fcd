@njit
def dot_numba(a, b):
    """Same loop as dot_loop, but compiled; float64 accumulator."""
    n = a.shape[0]
    total = 0.0
    for i in range(n):
        prod = np.float64(a[i]) * np.float64(b[i])
        total = total + prod
    return total
