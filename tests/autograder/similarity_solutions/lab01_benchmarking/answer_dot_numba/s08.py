@njit
def dot_numba(a, b):
    # summing from the last element down; order only affects the last bits
    total = 0.0
    for i in range(a.shape[0] - 1, -1, -1):
        total += np.float64(a[i]) * b[i]
    return total
