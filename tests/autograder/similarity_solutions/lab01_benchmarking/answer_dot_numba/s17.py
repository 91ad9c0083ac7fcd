@njit
def dot_numba(a, b):
    """Dot product of two 1-D float32 arrays, compiled by Numba.

    Identical to dot_loop except for the decorator; the float64 accumulator
    makes Numba return a float64, which arrives in Python as a float.
    """
    n = len(a)
    out = 0.0
    for i in range(n):
        out += np.float64(a[i]) * np.float64(b[i])
    return out
