@njit
def dot_numba(a, b):
    """Numba version of the loop. The accumulator is explicitly float64."""
    total = np.float64(0.0)
    for j in range(len(a)):
        total += np.float64(a[j]) * b[j]
    return total
