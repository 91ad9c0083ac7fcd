@njit
def dot_numba(a, b):
    """Compiled dot product with Kahan compensated summation in float64."""
    total = 0.0
    c = 0.0
    for i in range(a.shape[0]):
        y = np.float64(a[i]) * b[i] - c
        t = total + y
        c = (t - total) - y
        total = t
    return total
