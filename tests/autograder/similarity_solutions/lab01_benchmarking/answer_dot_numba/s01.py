@njit
def dot_numba(a, b):
    """Dot product of two 1-D float32 arrays, compiled by Numba (Lab 1, Part 1).

    The same loop as ``dot_loop``, inside an ``@njit`` function. Accumulate in
    float64: start from ``total = 0.0`` and add ``np.float64(a[i]) * b[i]``.
    Numba returns the float64 result as a Python ``float``.
    """
    total = 0.0
    for i in range(a.shape[0]):
        total += np.float64(a[i]) * b[i]
    return total
