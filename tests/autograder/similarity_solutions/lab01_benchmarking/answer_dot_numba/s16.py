@njit
def dot_numba(a, b):
    total = 0.0
    for i in range(a.size):
        x = a[i]
        y = b[i]
        total += np.float64(x) * np.float64(y)  # product in float64, not float32
    return total
