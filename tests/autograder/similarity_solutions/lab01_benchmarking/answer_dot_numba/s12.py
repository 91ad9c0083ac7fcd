@njit
def dot_numba(a, b):
    """Compiled dot product with a float64 accumulator (returns a Python float)."""
    n = a.shape[0]
    if n == 0:
        return 0.0
    total = np.float64(a[0]) * b[0]
    for i in range(1, n):
        total += np.float64(a[i]) * b[i]
    return total
