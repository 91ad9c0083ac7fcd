@njit
def dot_numba(a, b):
    # widen both arrays once, then run the plain loop in float64
    a64 = a.astype(np.float64)
    b64 = b.astype(np.float64)
    total = 0.0
    for i in range(a64.size):
        total += a64[i] * b64[i]
    return total
