@njit
def dot_numba(a, b):
    """Compiled dot product; Numba supports zip over arrays."""
    s = 0.0
    for x, y in zip(a, b):
        s += np.float64(x) * np.float64(y)
    return s
